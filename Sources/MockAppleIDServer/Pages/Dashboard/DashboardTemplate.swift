extension DashboardPage {
    /// The page (a Mustache template over ``Model``). Every `form.action` is an admin API call the script
    /// sends: `data-method` and `data-path` (under the admin prefix), its named fields as the JSON body
    /// (`data-type="boolean"` or `"number"` for other than text), its `<output>` showing the outcome.
    /// Sections marked `data-live` are refreshed as events arrive.
    static let template = """
        {{<page}}
        {{$title}}mock-appleid: {{scenario}}{{/title}}
        {{$body}}
        <style>
        body { max-width: 76rem; } table { border-collapse: collapse; width: 100%; font-size: .9rem; }
        th, td { text-align: left; padding: .3rem .5rem; border-bottom: 1px solid #d2d2d7; vertical-align: top; }
        ol.journal { padding-left: 1.2rem; font-size: .9rem; } ol.journal li { margin: .3rem 0; }
        a:focus, select:focus { outline: 3px solid #0071e3; }
        form.action { display: inline-block; margin: .1rem .4rem .1rem 0; } form.action button { font-size: .85rem; padding: .2rem .6rem; margin: 0; }
        form.action output, #outcome { font-size: .85rem; margin-left: .3rem; color: #1d7d36; } output.failed { color: #d70015; }
        ul.plain { list-style: none; padding: 0; margin: 0; } ul.plain li { margin: .15rem 0; }
        </style>
        <script src="{{prefix}}/dashboard.js" defer></script>
        <header>
        <h1>mock-appleid</h1>
        <p class="note">Scenario <strong>{{scenario}}</strong> · <a href="{{prefix}}/relay/inbox">Relay inboxes</a> ·
        JSON: <a href="{{prefix}}/personas">personas</a>, <a href="{{prefix}}/journal">journal</a>,
        <a href="{{prefix}}/notifications">notifications</a>, <a href="{{prefix}}/clock">clock</a>, <a href="{{prefix}}/events">events</a></p>
        <p>Last action: <output id="outcome" aria-live="polite">none yet</output></p>
        </header>
        <main id="dashboard" data-prefix="{{prefix}}" data-after="{{after}}">
        <section aria-labelledby="clock" data-live id="clock-section"><h2 id="clock">Clock and world</h2>
        <p>The clock is {{clockMode}} at <time>{{now}}</time>.</p>
        <form class="action" data-method="POST" data-path="/clock"><label>Advance by <input name="advance" data-type="number" value="86400" size="8"> s</label>
        <button type="submit">Advance the clock</button><output aria-live="polite"></output></form>
        <form class="action" data-method="POST" data-path="/clock"><label>Set to <input name="set" value="{{now}}" size="22"></label>
        <button type="submit">Set the clock</button><output aria-live="polite"></output></form>
        <form class="action" data-method="POST" data-path="/reset"><button type="submit">Reset the world</button><output aria-live="polite"></output></form>
        </section>
        <section aria-labelledby="personas" data-live id="personas-section"><h2 id="personas">Personas</h2>
        <table><thead><tr><th scope="col">ID</th><th scope="col">Name</th><th scope="col">Email</th><th scope="col">Account</th><th scope="col">Signed in to</th><th scope="col">Relay addresses</th></tr></thead>
        <tbody>{{#personas}}<tr><td><code>{{id}}</code></td><td>{{name}}</td><td>{{email}} <span class="note">({{emailChoice}})</span></td>
        <td>{{#managed}}managed{{/managed}}{{^managed}}personal{{/managed}}{{#deleted}}, deleted{{/deleted}}
        {{^deleted}}<form class="action" data-method="POST" data-path="/personas/{{path}}/delete-account"><button type="submit">Delete account</button><output aria-live="polite"></output></form>{{/deleted}}</td>
        <td>{{^hasApps}}<span class="note">none</span>{{/hasApps}}<ul class="plain">{{#apps}}<li><code>{{groupID}}</code>
        <form class="action" data-method="POST" data-path="/personas/{{path}}/revoke-consent"><input type="hidden" name="client" value="{{groupID}}"><button type="submit">Revoke consent</button><output aria-live="polite"></output></form></li>{{/apps}}</ul></td>
        <td>{{^hasAddresses}}<span class="note">none</span>{{/hasAddresses}}<ul class="plain">{{#addresses}}<li><code>{{address}}</code> <span class="note">team {{teamID}}, {{appGroups}}: forwarding {{#forwarding}}on{{/forwarding}}{{^forwarding}}off{{/forwarding}}</span>
        <form class="action" data-method="PUT" data-path="/personas/{{path}}/relay-forwarding"><input type="hidden" name="app" value="{{app}}"><input type="hidden" name="forwarding" data-type="boolean" value="{{#turnOn}}true{{/turnOn}}{{^turnOn}}false{{/turnOn}}"><button type="submit">Turn forwarding {{#turnOn}}on{{/turnOn}}{{^turnOn}}off{{/turnOn}}</button><output aria-live="polite"></output></form></li>{{/addresses}}</ul></td></tr>{{/personas}}</tbody></table>
        </section>
        <section aria-labelledby="apps" data-live id="apps-section"><h2 id="apps">Apps</h2>
        {{#apps}}<article><h3><code>{{primaryAppID}}</code> <span class="note">team {{teamID}} · notifications to {{notificationURL}}</span></h3>
        <ul>{{#clients}}<li><code>{{id}}</code> {{detail}}</li>{{/clients}}</ul>
        <form class="action" data-method="POST" data-path="/notifications"><input type="hidden" name="app" value="{{primaryAppID}}">
        <label>Send <select name="type">{{#notificationTypes}}<option>{{value}}</option>{{/notificationTypes}}</select></label>
        <label>about <select name="persona">{{#personas}}<option>{{value}}</option>{{/personas}}</select></label>
        <button type="submit">Send a notification</button><output aria-live="polite"></output></form>
        {{#hasOtherTeams}}<form class="action" data-method="POST" data-path="/apps/{{path}}/transfer"><label>Move to team <select name="team">{{#otherTeams}}<option>{{value}}</option>{{/otherTeams}}</select></label>
        <button type="submit">Transfer the app</button><output aria-live="polite"></output></form>{{/hasOtherTeams}}</article>{{/apps}}
        </section>
        <section aria-labelledby="deliveries" data-live id="deliveries-section"><h2 id="deliveries">Notifications not yet delivered</h2>
        {{^hasDeliveries}}<p class="note">None.</p>{{/hasDeliveries}}
        {{#hasDeliveries}}<table><thead><tr><th scope="col">Type</th><th scope="col">Persona</th><th scope="col">App</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Next attempt</th><th scope="col">URL</th></tr></thead>
        <tbody>{{#deliveries}}<tr><td>{{type}}</td><td><code>{{personaID}}</code></td><td><code>{{app}}</code></td><td>{{status}}</td><td>{{attempts}}</td><td>{{nextAttempt}}</td><td>{{url}}</td></tr>{{/deliveries}}</tbody></table>
        <form class="action" data-method="POST" data-path="/notifications/retry"><button type="submit">Retry them now</button><output aria-live="polite"></output></form>{{/hasDeliveries}}
        </section>
        <section aria-labelledby="requests" data-live id="requests-section"><h2 id="requests">Latest requests</h2>
        {{^hasRequests}}<p class="note">None yet.</p>{{/hasRequests}}
        <ol class="journal">{{#requests}}<li{{#failed}} class="error"{{/failed}}><time>{{time}}</time> <code>{{method}} {{endpoint}}</code> {{clientID}} → <strong>{{status}}</strong> {{error}}<br><span class="note">{{reason}}</span></li>{{/requests}}</ol>
        </section>
        </main>
        {{/body}}
        {{/page}}
        """
}
