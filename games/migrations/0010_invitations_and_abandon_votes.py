from django.db import migrations, models

import games.models


def give_every_table_its_own_token(apps, schema_editor):
    """AddField computes a callable default once for all rows: each existing table gets a token of its own."""
    Table = apps.get_model("games", "Table")
    for table in Table.objects.only("pk").iterator():
        Table.objects.filter(pk=table.pk).update(invite_token=games.models.new_invite_token())


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0009_player_deck"),
    ]

    operations = [
        migrations.AddField(
            model_name="table",
            name="invite_token",
            field=models.CharField(default=games.models.new_invite_token, max_length=32),
        ),
        migrations.RunPython(give_every_table_its_own_token, migrations.RunPython.noop),
        migrations.AddField(
            model_name="game",
            name="abandon_vote",
            field=models.JSONField(blank=True, null=True),
        ),
    ]
