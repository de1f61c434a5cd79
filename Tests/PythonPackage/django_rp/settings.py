"""A Django site that signs in with Apple through django-allauth's Apple provider, configured as
allauth's documentation shows. Apple's credentials come from the environment; allauth's Apple URLs are
built in and left alone."""
import os

SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "sample-relying-party-not-secret")
DEBUG = False
ALLOWED_HOSTS = ["localhost"]
ROOT_URLCONF = "django_rp.urls"
USE_TZ = True

INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.sites",
    "allauth",
    "allauth.account",
    "allauth.socialaccount",
    "allauth.socialaccount.providers.apple",
]
SITE_ID = 1

MIDDLEWARE = [
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "allauth.account.middleware.AccountMiddleware",
]

TEMPLATES = [{
    "BACKEND": "django.template.backends.django.DjangoTemplates",
    "APP_DIRS": True,
    "OPTIONS": {"context_processors": ["django.template.context_processors.request",
                                       "django.contrib.auth.context_processors.auth",
                                       "django.contrib.messages.context_processors.messages"]},
}]

DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": os.environ.get("DJANGO_DATABASE", ":memory:")}}
AUTHENTICATION_BACKENDS = ["allauth.account.auth_backends.AuthenticationBackend"]
LOGIN_REDIRECT_URL = "/me/"

ACCOUNT_EMAIL_VERIFICATION = "none"
SOCIALACCOUNT_LOGIN_ON_GET = True
SOCIALACCOUNT_QUERY_EMAIL = True  # else allauth asks Apple for the name scope only, and gets no email
SOCIALACCOUNT_PROVIDERS = {
    "apple": {
        "APPS": [{
            "client_id": os.environ.get("APPLE_CLIENT_ID", ""),
            "secret": os.environ.get("APPLE_KEY_ID", ""),
            "key": os.environ.get("APPLE_TEAM_ID", ""),
            "settings": {"certificate_key": os.environ.get("APPLE_PRIVATE_KEY", "")},
        }],
    },
}
