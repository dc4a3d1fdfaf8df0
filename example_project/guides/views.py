from django.conf import settings
from django.urls import translate_url
from django.views.generic import DetailView, ListView

from .models import Guide, Topic


class LanguageLinksMixin:
    """The page in each language of settings.LANGUAGES, for the template's switcher."""

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        path = self.request.get_full_path()
        context["language_links"] = [
            (code, name, self.request.build_absolute_uri(translate_url(path, code)))
            for code, name in settings.LANGUAGES
        ]
        return context


class PublishedGuides:
    # Drafts are not in the sitemap and are not served either.
    queryset = Guide.objects.filter(is_draft=False).select_related("topic")


class GuideListView(LanguageLinksMixin, PublishedGuides, ListView):
    paginate_by = 50
    template_name = "guides/guide_list.html"


class GuideDetailView(LanguageLinksMixin, PublishedGuides, DetailView):
    template_name = "guides/guide_detail.html"


class TopicDetailView(LanguageLinksMixin, DetailView):
    model = Topic
    template_name = "guides/topic_detail.html"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context["guides"] = self.object.guides.filter(is_draft=False)[:100]
        return context
