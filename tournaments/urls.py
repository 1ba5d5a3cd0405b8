from __future__ import annotations

from django.urls import path

from tournaments import views

urlpatterns = [
    path("tournaments/", views.tournament_list, name="tournaments"),
    path("tournaments/new/", views.tournament_new, name="tournament_new"),
    path("tournaments/<int:tournament_id>/", views.tournament_detail, name="tournament"),
    path("tournaments/<int:tournament_id>/register/", views.tournament_register, name="tournament_register"),
    path("tournaments/<int:tournament_id>/join/<str:token>/", views.tournament_join, name="tournament_join"),
    path("tournaments/<int:tournament_id>/teams/<int:entrant_id>/", views.tournament_team, name="tournament_team"),
    path("tournaments/<int:tournament_id>/start/", views.tournament_start, name="tournament_start"),
    path("tournaments/<int:tournament_id>/cancel/", views.tournament_cancel, name="tournament_cancel"),
    path("tournaments/<int:tournament_id>/standings.json", views.standings_json, name="tournament_standings_json"),
    path("tournaments/<int:tournament_id>/standings.csv", views.standings_csv, name="tournament_standings_csv"),
]
