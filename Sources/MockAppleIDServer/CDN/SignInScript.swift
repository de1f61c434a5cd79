/// `appleid.auth.js`, Sign in with Apple JS as this server serves it: Apple's entry points
/// (`AppleID.auth.init`, `signIn`, `renderButton`, the `appleid-signin-*` meta tags, the
/// `AppleIDSignInOnSuccess` / `AppleIDSignInOnFailure` events) over this server's endpoints. It finds
/// the server (and a tenant's prefix) from its own URL, so one file serves every host, tenant and locale.
enum SignInScript {
    static let source = #"""
/* Sign in with Apple JS, as served by mock-appleid: Apple's AppleID.auth API over the mock-appleid server
   this file was loaded from. Redirect mode navigates to /auth/authorize (response_mode=form_post); popup mode
   opens it with response_mode=web_message and takes the result the popup posts back. */
(function () {
  "use strict";
  var PATH = /^(.*?)(\/appleid\.cdn-apple\.com)?\/appleauth\/static\/jsapi\/appleid\/1\/([A-Za-z_]+)\/appleid\.auth\.js$/;
  var script = document.currentScript;
  var source = script && script.src ? new URL(script.src, location.href) : null;
  var match = source ? source.pathname.match(PATH) : null;
  var prefix = match ? match[1] : "";
  // Where sign-in pages are (Apple's CDN host stands for appleid.apple.com), and where button images are.
  var host = source && match ? source.host.replace(/^appleid\.cdn-apple\.com(?=:|$)/, "appleid.apple.com") : location.host;
  var base = (source && match ? source.protocol : location.protocol) + "//" + host + prefix;
  var images = source && match ? source.origin + prefix + (match[2] || "") : base;
  var locale = match ? match[3] : "en_US";
  var LABELS = { "sign-in": "Sign in with Apple", "continue": "Continue with Apple", "sign-up": "Sign up with Apple" };

  var settings = null;
  var flow = null;

  function fail(message) { throw new Error("AppleID.auth: " + message); }

  function checked(options) {
    if (!options || typeof options !== "object") fail("init takes an object");
    ["clientId", "redirectURI"].forEach(function (name) {
      if (typeof options[name] !== "string" || options[name] === "") fail("The \"" + name + "\" should be a string");
    });
    ["scope", "state", "nonce"].forEach(function (name) {
      if (options[name] !== undefined && options[name] !== null && typeof options[name] !== "string") {
        fail("The \"" + name + "\" should be a string");
      }
    });
    return {
      clientId: options.clientId, redirectURI: options.redirectURI, scope: options.scope || "",
      state: options.state || "", nonce: options.nonce || "", usePopup: options.usePopup === true
    };
  }

  function authorizeURL(config, popup) {
    var query = new URLSearchParams();
    query.set("client_id", config.clientId);
    query.set("redirect_uri", config.redirectURI);
    query.set("response_type", "code id_token");
    query.set("response_mode", popup ? "web_message" : "form_post");
    if (config.scope) query.set("scope", config.scope);
    if (config.state) query.set("state", config.state);
    if (config.nonce) query.set("nonce", config.nonce);
    return base + "/auth/authorize?" + query.toString();
  }

  function announce(name, detail) {
    document.dispatchEvent(new CustomEvent(name, { detail: detail }));
  }

  function finish(current, data) {
    if (flow === current) flow = null;
    clearInterval(current.timer);
    if (data.error) {
      var failure = { error: data.error };
      announce("AppleIDSignInOnFailure", failure);
      current.reject(failure);
    } else {
      var response = { authorization: data.authorization };
      if (data.user) response.user = data.user;
      // Apple's documentation reads event.detail.data; pages in the wild read event.detail.authorization.
      announce("AppleIDSignInOnSuccess", Object.assign({ data: response }, response));
      current.resolve(response);
    }
  }

  function signInWithPopup(config) {
    if (flow) finish(flow, { error: "user_trigger_new_signin_flow" });
    var popup = window.open(authorizeURL(config, true), "AppleAuthentication", "width=700,height=720,menubar=no,toolbar=no");
    return new Promise(function (resolve, reject) {
      var current = { resolve: resolve, reject: reject, popup: popup, origin: new URL(base).origin, closedOnce: false };
      if (!popup) { finish(current, { error: "popup_blocked_by_browser" }); return; }
      // A popup found closed twice in a row without a message was closed by the user.
      current.timer = setInterval(function () {
        if (!popup.closed) return;
        if (current.closedOnce) finish(current, { error: "popup_closed_by_user" });
        current.closedOnce = true;
      }, 250);
      flow = current;
    });
  }

  window.addEventListener("message", function (event) {
    var current = flow;
    if (!current || event.origin !== current.origin || event.source !== current.popup) return;
    var data = event.data;
    if (!data || data.source !== "mock-appleid") return;
    finish(current, data);
  });

  function signIn(options) {
    if (!settings && !options && !metaTags().clientId) return Promise.reject(new Error("AppleID.auth: init must be called first"));
    var config;
    try {
      config = checked(Object.assign({}, metaTags(), settings || {}, options || {}));
    } catch (error) {
      return Promise.reject(error);
    }
    if (config.usePopup) return signInWithPopup(config);
    location.assign(authorizeURL(config, false));
    return new Promise(function () {});
  }

  function bounded(value, measured, least, most, fallback) {
    var number = value === undefined || value === "100%" ? Math.round(measured) : parseInt(value, 10);
    if (!isFinite(number) || number < 0) number = fallback;
    return Math.min(most, Math.max(least, number));
  }

  function renderButton() {
    var element = document.getElementById("appleid-signin");
    if (!element) return;
    var data = element.dataset;
    var mode = data.mode || "center-align";
    var type = (data.type || "sign-in").replace(" ", "-");
    if (!LABELS[type]) type = "sign-in";
    var box = element.getBoundingClientRect();
    var height = bounded(data.height, box.height, 30, 64, 40);
    var width = mode === "logo-only" ? height : bounded(data.width, box.width, 130, 375, 200);
    var query = new URLSearchParams();
    var path = "/appleid/button";
    if (mode === "logo-only") {
      path += "/logo";
      query.set("size", String(height));
    } else {
      if (mode === "left-align") {
        path += "/left";
        var most = Math.min(182, Math.floor(width / 2));
        if (["small", "medium", "large"].indexOf(data.logoSize) >= 0) query.set("logo-size", data.logoSize);
        if (data.logoPosition) query.set("logo-position", String(bounded(data.logoPosition, 0, 0, most, 0)));
        if (data.labelPosition) query.set("label-position", String(bounded(data.labelPosition, 0, 0, most, 0)));
      }
      query.set("width", String(width));
      query.set("height", String(height));
      query.set("type", type);
      query.set("locale", locale);
    }
    query.set("color", data.color === "white" ? "white" : "black");
    query.set("border", data.border === "false" ? "false" : "true");
    query.set("border_radius", String(bounded(data.borderRadius, 15, 0, 50, 15)));
    query.set("scale", String(Math.min(6, Math.max(1, Math.ceil(window.devicePixelRatio || 1)))));

    var button = document.createElement("div");
    button.setAttribute("role", "button");
    button.setAttribute("tabindex", "0");
    button.setAttribute("aria-label", LABELS[type]);
    button.style.cssText = "display:inline-block;cursor:pointer;line-height:0";
    var image = document.createElement("img");
    image.src = images + path + "?" + query.toString();
    image.width = width;
    image.height = height;
    image.alt = LABELS[type];
    button.appendChild(image);
    function start(event) {
      event.preventDefault();
      signIn().catch(function () {});
    }
    button.addEventListener("click", start);
    button.addEventListener("keydown", function (event) {
      if (event.key === "Enter" || event.key === " ") start(event);
    });
    element.replaceChildren(button);
  }

  // The settings the page's appleid-signin-* meta tags give (those present).
  function metaTags() {
    var found = {};
    [["clientId", "client-id"], ["redirectURI", "redirect-uri"], ["scope", "scope"], ["state", "state"],
     ["nonce", "nonce"], ["usePopup", "use-popup"]].forEach(function (pair) {
      var tag = document.querySelector("meta[name=\"appleid-signin-" + pair[1] + "\"]");
      if (tag) found[pair[0]] = pair[0] === "usePopup" ? tag.getAttribute("content") === "true" : tag.getAttribute("content");
    });
    return found;
  }

  // init's options over the meta tags' settings.
  function init(options) {
    settings = checked(Object.assign({}, metaTags(), options || {}));
    renderButton();
  }

  function initFromMetaTags() {
    if (settings) {
      renderButton();
    } else if (metaTags().clientId) {
      init({});
    }
  }

  window.AppleID = { auth: { init: init, signIn: signIn, renderButton: renderButton } };
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", initFromMetaTags);
  } else {
    initFromMetaTags();
  }
})();
"""#
}
