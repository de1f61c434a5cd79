import NIOCore

/// The dashboard's script (`GET /__admin/dashboard.js`): sends each action form as a same-origin JSON call
/// to the admin API and shows the outcome beside it, and follows `GET /__admin/events/stream` to refresh
/// the page's live sections when the world changes (from the page, a relying party or a test).
enum DashboardScript {
    /// The script as served, made once.
    static let bytes = ByteBuffer(string: source)

    static let source = """
        "use strict";
        (function () {
          var main = document.getElementById("dashboard");
          if (!main) { return; }
          var prefix = main.dataset.prefix;
          var outcome = document.getElementById("outcome");

          // The outcome beside the form and, since a refresh may replace the form, in the page's status line.
          function report(form, text, failed) {
            var output = form.querySelector("output");
            output.className = failed ? "failed" : "";
            output.textContent = text;
            outcome.className = failed ? "failed" : "";
            outcome.textContent = form.querySelector("button").textContent + ": " + text;
          }

          function body(form) {
            var members = {};
            Array.prototype.forEach.call(form.elements, function (field) {
              if (!field.name || field.value === "") { return; }
              var value = field.value;
              if (field.dataset.type === "boolean") { value = value === "true"; }
              if (field.dataset.type === "number") { value = Number(value); }
              members[field.name] = value;
            });
            return JSON.stringify(members);
          }

          document.addEventListener("submit", function (event) {
            var form = event.target;
            if (!form.classList || !form.classList.contains("action")) { return; }
            event.preventDefault();
            var button = form.querySelector("button");
            report(form, "…", false);
            button.disabled = true;
            fetch(prefix + form.dataset.path, {
              method: form.dataset.method, credentials: "same-origin",
              headers: { "Content-Type": "application/json", "Accept": "application/json" }, body: body(form)
            }).then(function (response) {
              return response.text().then(function (text) {
                var answer = {};
                try { answer = JSON.parse(text); } catch (ignored) { answer = {}; }
                if (!response.ok) { throw new Error(answer.message || ("HTTP " + response.status)); }
                report(form, response.status === 202 ? "scheduled" : "done", false);
                refreshSoon();
              });
            }).catch(function (error) {
              report(form, error.message, true);
            }).then(function () { button.disabled = false; });
          });

          var pending = null;
          function refreshSoon() {
            if (pending) { return; }
            pending = setTimeout(refresh, 150);
          }

          // Each live section is replaced by the fresh page's, unless the person is typing or choosing in it.
          function refresh() {
            pending = null;
            fetch(location.href, { credentials: "same-origin", headers: { "Accept": "text/html" } })
              .then(function (response) { return response.text(); })
              .then(function (html) {
                var fresh = new DOMParser().parseFromString(html, "text/html");
                document.querySelectorAll("section[data-live]").forEach(function (section) {
                  var replacement = fresh.getElementById(section.id);
                  var active = document.activeElement;
                  var busy = section.contains(active) && (active.tagName === "INPUT" || active.tagName === "SELECT");
                  if (replacement && !busy) { section.innerHTML = replacement.innerHTML; }
                });
                var freshMain = fresh.getElementById("dashboard");
                if (freshMain) { main.dataset.after = freshMain.dataset.after; }
              })
              .catch(function () { /* the next event tries again */ });
          }

          if (window.EventSource) {
            var events = new EventSource(prefix + "/events/stream?after=" + encodeURIComponent(main.dataset.after));
            events.onmessage = refreshSoon;
          }
        })();
        """
}
