from django.http import JsonResponse
from django.urls import include, path


def me(request):
    """The signed-in user, as the site sees them."""
    user = request.user
    if not user.is_authenticated:
        return JsonResponse({"signedIn": False}, status=401)
    account = user.socialaccount_set.get(provider="apple")
    return JsonResponse({"signedIn": True, "email": user.email, "firstName": user.first_name,
                         "lastName": user.last_name, "appleSub": account.uid})


urlpatterns = [
    path("accounts/", include("allauth.urls")),
    path("me/", me),
]
