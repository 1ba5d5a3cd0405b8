from __future__ import annotations

from django.contrib.auth import views as auth_views
from django.urls import path

from games.pages import views

urlpatterns = [
    path("", views.lobby, name="lobby"),
    path("guest/", views.guest, name="guest"),
    path("accounts/signup/", views.signup, name="signup"),
    path("accounts/login/", views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("tables/new/", views.create_table, name="create_table"),
    path("play-now/", views.play_now, name="play_now"),
    path("tables/<int:table_id>/", views.table, name="table"),
    path("tables/<int:table_id>/seat/", views.seat_action, name="seat_action"),
    path("tables/<int:table_id>/invite/", views.invitation, name="invitation"),  # the token in the fragment
    path("tables/<int:table_id>/invite/renew/", views.renew_invitation, name="renew_invitation"),
    path("tables/<int:table_id>/invite/<str:token>/", views.invitation, name="invitation_in_path"),  # older links
    path("games/", views.recent_games, name="recent_games"),
    path("games/mine/", views.my_games, name="my_games"),
    path("games/import/", views.import_game, name="import_game"),
    path("games/<int:game_id>/", views.game_result, name="game_result"),
    path("games/<int:game_id>/replay", views.replay, name="replay"),
    path("games/<int:game_id>/record.json", views.record_json, name="record_json"),
    path("games/<int:game_id>/rounds.json", views.round_logs_json, name="round_logs_json"),
    path("games/<int:game_id>/analysis.json", views.analysis_json, name="analysis_json"),
    path("games/<int:game_id>/analyse", views.analyse_game, name="analyse_game"),
    path("rules/", views.rules, name="rules"),
    path("stats/", views.stats_page, name="stats"),
    path("ratings/", views.leaderboard, name="leaderboard"),
    path("players/me/", views.my_profile, name="my_profile"),
    path("players/<int:competitor_id>/", views.profile, name="profile"),
    path("settings/", views.user_settings, name="settings"),
    path("settings/deck/", views.set_deck, name="set_deck"),
]
