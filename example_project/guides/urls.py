"""The guides' URLs, included inside ``i18n_patterns`` (/en/guides/..., /fr/guides/..., /de/guides/...)."""

from django.urls import path

from . import views

app_name = "guides"

urlpatterns = [
    path("", views.GuideListView.as_view(), name="guide-list"),
    path("topics/<slug:slug>/", views.TopicDetailView.as_view(), name="topic-detail"),
    path("<slug:slug>/", views.GuideDetailView.as_view(), name="guide-detail"),
]
