import NIOCore

/// The admin API's OpenAPI 3.1 document, served at `/__admin/openapi.yaml` and checked against the running
/// server in CI (schemathesis). `AdminOpenAPITests` checks that it names every admin route and no other, for the server and for a tenant.
enum AdminOpenAPIDocument {
    /// The server's own admin API (at `/__admin`).
    static let server = ByteBuffer(string: text)

    /// A tenant's admin API, under `base` (`/t/NAME`): the same operations but the tenants' own, which only
    /// the server's admin API has. Made when asked for from text trimmed once, so that tenants keep no copies.
    static func tenant(base: String) -> ByteBuffer {
        ByteBuffer(string: tenantText.replacingOccurrences(of: "servers:\n  - url: /\n", with: "servers:\n  - url: \(base)\n"))
    }

    /// ``text`` without the paths under `/__admin/tenants`.
    private static let tenantText: String = {
        var lines: [Substring] = []
        var inTenantsPath = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("  /") { inTenantsPath = line.hasPrefix("  /__admin/tenants") }
            else if !line.hasPrefix(" "), !line.isEmpty { inTenantsPath = false }
            if !inTenantsPath { lines.append(line) }
        }
        return lines.joined(separator: "\n")
    }()

    static let text = #"""
openapi: 3.1.0
info:
  title: mock-appleid admin API
  version: "1"
  description: |
    The admin API of mock-appleid, a local stand-in for Apple's Sign in with Apple servers. It is served
    on the same listener as Apple's endpoints, under `/__admin`, and controls and inspects the mock's
    world: personas, the mock clock, signing keys, queued faults, server-to-server notifications, the
    private email relay, app transfers, timelines and tenants.

    **Who may call it.** Without `--admin-token` only loopback clients may, and only with a `Host` that is
    `localhost`, a loopback IP, or the server's own bound or public host name; other clients get
    `403 not_loopback`, other hosts `403 bad_host`. With `--admin-token TOKEN` every client must send
    `Authorization: Bearer TOKEN` (loopback ones too); others get `401 unauthorized`.
    Either way a request a browser marks as coming from another site (`Sec-Fetch-Site` other than
    `same-origin` or `none`, or an `Origin` whose host and port differ from `Host`) gets `403 cross_site`, and no
    CORS header is ever sent.

    **Writes.** Every `POST`, `PUT` and `PATCH` must carry `Content-Type: application/json` (parameters
    after `;` are ignored), even when the body is empty or not read; otherwise the answer is
    `415 unsupported_media_type`. An empty body reads as `{}`. A body that is read must be a JSON object
    (nested at most 32 levels, at most the server's body limit, 64 KiB by default); a member the
    operation does not define is refused with `400 bad_request` naming the members it takes.
    `DELETE` requests need no Content-Type and their bodies are never read.

    **Errors** of the operations below are JSON `{"error": code, "message": text}` with
    `Content-Type: application/json`. Outside them the router answers with an empty body: an unknown
    path gets `404`, a known path with another method `405 Method Not Allowed` with `Allow`.
    `HEAD` is answered wherever `GET` is.

    Times are ISO 8601 (`2026-01-01T09:00:00Z`, whole seconds) on the mock clock.
servers:
  - url: /
security:
  - {}
  - adminToken: []
tags:
  - name: server
  - name: clock
  - name: personas
  - name: keys
  - name: faults
  - name: sign-in
  - name: notifications
  - name: relay
  - name: transfers
  - name: timeline
  - name: tenants
  - name: log
paths:
  /__admin:
    get:
      operationId: getDashboard
      summary: The dashboard page (scenario, clock, personas, apps, pending notifications, latest requests).
      tags: [server]
      responses:
        "200":
          description: The dashboard, an HTML page.
          content:
            text/html:
              schema:
                type: string
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "503": {$ref: "#/components/responses/StateNotSaved"}

  /__admin/openapi.yaml:
    get:
      operationId: getOpenAPIDocument
      summary: This document.
      tags: [server]
      responses:
        "200":
          description: The admin API's OpenAPI 3.1 document, in YAML.
          content:
            application/yaml:
              schema:
                type: string
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "503": {$ref: "#/components/responses/StateNotSaved"}

  /__admin/dashboard.js:
    get:
      operationId: getDashboardScript
      summary: The dashboard's script (its actions call this API from the page; it follows the event stream).
      tags: [server]
      responses:
        "200":
          description: The script.
          content:
            text/javascript:
              schema:
                type: string
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "503": {$ref: "#/components/responses/StateNotSaved"}

  /__admin/health:
    get:
      operationId: getHealth
      summary: Liveness, the scenario's name, and where every listener is (its URL, host and port).
      tags: [server]
      responses:
        "200":
          description: The server is up.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Health"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "500": {$ref: "#/components/responses/EncodingFailed"}
        "503": {$ref: "#/components/responses/StateNotSaved"}

  /__admin/reset:
    post:
      operationId: resetWorld
      summary: Back to the scenario's start in one step (personas, grants, auto-approve, keys, faults, clock, timeline); the event log starts over.
      tags: [server]
      requestBody: {$ref: "#/components/requestBodies/Unread"}
      responses:
        "200":
          description: The world is back at the scenario's start.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/ResetResult"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "413": {$ref: "#/components/responses/ContentTooLarge"}
        "415": {$ref: "#/components/responses/UnsupportedMediaType"}
        "500": {$ref: "#/components/responses/EncodingFailed"}
        "503": {$ref: "#/components/responses/StateNotSaved"}

  /__admin/journal:
    get:
      operationId: listJournal
      summary: Apple-endpoint requests (any channel) with their outcome and real reason, oldest first.
      tags: [log]
      parameters:
        - $ref: "#/components/parameters/After"
      responses:
        "200":
          description: The journal entries after the given sequence number.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Journal"}
        "400": {$ref: "#/components/responses/BadRequest"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "500": {$ref: "#/components/responses/EncodingFailed"}
        "503": {$ref: "#/components/responses/StateNotSaved"}

  /__admin/events:
    get:
      operationId: listEvents
      summary: Every domain event kept (at most the newest 10000), oldest first.
      tags: [log]
      parameters:
        - $ref: "#/components/parameters/After"
      responses:
        "200":
          description: The events after the given sequence number.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/EventList"}
        "400": {$ref: "#/components/responses/BadRequest"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "500": {$ref: "#/components/responses/EncodingFailed"}
        "503": {$ref: "#/components/responses/StateNotSaved"}

  /__admin/events/stream:
    get:
      operationId: streamEvents
      summary: Every domain event as it happens, as server-sent events; the events after `after` (or `Last-Event-ID`) first.
      description: |
        Each event is `id: <sequence>` and `data: <an Event as /__admin/events lists it>`, then a blank line; a
        comment line comes every 15 s while nothing happens. The stream ends when the server shuts down; a
        reconnecting `EventSource` sends `Last-Event-ID` and gets what it missed (of the events kept).
      tags: [log]
      parameters:
        - $ref: "#/components/parameters/After"
      responses:
        "200":
          description: The stream; each event's data is an Event, in JSON.
          content:
            text/event-stream:
              schema:
                type: object
                required: [id, data]
                properties:
                  id:
                    type: string
                    pattern: "^[0-9]+$"
                  event:
                    type: string
                  data:
                    type: string
                    contentMediaType: application/json
                    contentSchema: {$ref: "#/components/schemas/Event"}
        "400": {$ref: "#/components/responses/BadRequest"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "503": {$ref: "#/components/responses/StateNotSaved"}

  /__admin/clock:
    get:
      operationId: getClock
      summary: The mock clock's instant, mode and scheduled work.
      tags: [clock]
      responses:
        "200":
          description: The clock.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Clock"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "500": {$ref: "#/components/responses/EncodingFailed"}
        "503": {$ref: "#/components/responses/StateNotSaved"}
    post:
      operationId: changeClock
      summary: Set, freeze or unfreeze, and/or advance the mock clock; due scheduled work fires in order.
      tags: [clock]
      requestBody:
        required: true
        description: Any subset of the members (an empty body changes nothing). `set` (with `frozen`, or the
          current mode) is applied first, then `advance`.
        content:
          application/json:
            schema: {$ref: "#/components/schemas/ClockChange"}
            example: {advance: 60}
      responses:
        "200":
          description: The clock after the change.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Clock"}
        "400": {$ref: "#/components/responses/BadRequest"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "413": {$ref: "#/components/responses/ContentTooLarge"}
        "415": {$ref: "#/components/responses/UnsupportedMediaType"}
        "500": {$ref: "#/components/responses/EncodingFailed"}
        "503": {$ref: "#/components/responses/StateNotSaved"}

  /__admin/faults:
    get:
      operationId: listFaults
      summary: The queued faults, in queue order.
      tags: [faults]
      responses:
        "200":
          description: The queued faults.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/FaultList"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "500": {$ref: "#/components/responses/EncodingFailed"}
        "503": {$ref: "#/components/responses/StateNotSaved"}
    post:
      operationId: queueFault
      summary: Queue a fault for the next matching request(s) or identity token(s).
      tags: [faults]
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: "#/components/schemas/FaultSpec"}
            example: {fault: token-server-error, status: 503}
      responses:
        "201":
          description: Queued; every queued fault, the new one last.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/FaultList"}
        "400": {$ref: "#/components/responses/BadRequest"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "413": {$ref: "#/components/responses/ContentTooLarge"}
        "415": {$ref: "#/components/responses/UnsupportedMediaType"}
        "500": {$ref: "#/components/responses/EncodingFailed"}
        "503": {$ref: "#/components/responses/StateNotSaved"}
    delete:
      operationId: clearFaults
      summary: Remove every queued fault.
      tags: [faults]
      responses:
        "200":
          description: Cleared; the (empty) queue.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/EmptyFaultList"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "500": {$ref: "#/components/responses/EncodingFailed"}
        "503": {$ref: "#/components/responses/StateNotSaved"}

  /__admin/faults/{id}:
    delete:
      operationId: removeFault
      summary: Remove one queued fault.
      tags: [faults]
      parameters:
        - name: id
          in: path
          required: true
          description: The fault's id (from `GET /__admin/faults`). Anything that is not the id of a queued fault is answered 404.
          schema:
            type: integer
            minimum: 1
            maximum: 9223372036854775807
          example: 1
      responses:
        "200":
          description: Removed; the faults still queued.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/FaultList"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "404": {$ref: "#/components/responses/NotFound"}
        "500": {$ref: "#/components/responses/EncodingFailed"}
        "503": {$ref: "#/components/responses/StateNotSaved"}

  /__admin/keys:
    get:
      operationId: getKeys
      summary: The published signing keys, the active one and whether `/auth/keys` shuffles them.
      tags: [keys]
      responses:
        "200":
          description: The key ring.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/KeyRing"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "500": {$ref: "#/components/responses/EncodingFailed"}
        "503": {$ref: "#/components/responses/StateNotSaved"}
    post:
      operationId: addKey
      summary: Publish a signing key (given as PEM or generated), optionally activate it, now or at a clock time.
      tags: [keys]
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: "#/components/schemas/NewKey"}
            example: {kid: newKid01, generate: true, activate: true}
      responses:
        "201":
          description: Added now (no `at`, or an `at` the clock has reached).
          content:
            application/json:
              schema: {$ref: "#/components/schemas/KeyRing"}
        "202": {$ref: "#/components/responses/KeyChangeScheduled"}
        "400": {$ref: "#/components/responses/BadRequest"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "409": {$ref: "#/components/responses/KeyConflict"}
        "413": {$ref: "#/components/responses/ContentTooLarge"}
        "415": {$ref: "#/components/responses/UnsupportedMediaType"}
        "500": {$ref: "#/components/responses/KeyGenerationOrEncodingFailed"}
        "503": {$ref: "#/components/responses/StateNotSaved"}

  /__admin/keys/{kid}/activate:
    post:
      operationId: activateKey
      summary: Sign identity tokens and notifications with another published key, now or at a clock time.
      tags: [keys]
      parameters:
        - $ref: "#/components/parameters/Kid"
      requestBody: {$ref: "#/components/requestBodies/KeyChangeTime"}
      responses:
        "200":
          description: Activated now (no `at`, or an `at` the clock has reached).
          content:
            application/json:
              schema: {$ref: "#/components/schemas/KeyRing"}
        "202": {$ref: "#/components/responses/KeyChangeScheduled"}
        "400": {$ref: "#/components/responses/BadRequest"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "404": {$ref: "#/components/responses/NotFound"}
        "413": {$ref: "#/components/responses/ContentTooLarge"}
        "415": {$ref: "#/components/responses/UnsupportedMediaType"}
        "500": {$ref: "#/components/responses/EncodingFailed"}
        "503": {$ref: "#/components/responses/StateNotSaved"}

  /__admin/keys/{kid}/retire:
    post:
      operationId: retireKey
      summary: Stop publishing a key (not the active one), now or at a clock time.
      tags: [keys]
      parameters:
        - $ref: "#/components/parameters/Kid"
      requestBody: {$ref: "#/components/requestBodies/KeyChangeTime"}
      responses:
        "200":
          description: Retired now (no `at`, or an `at` the clock has reached).
          content:
            application/json:
              schema: {$ref: "#/components/schemas/KeyRing"}
        "202": {$ref: "#/components/responses/KeyChangeScheduled"}
        "400": {$ref: "#/components/responses/BadRequest"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "404": {$ref: "#/components/responses/NotFound"}
        "409": {$ref: "#/components/responses/KeyConflict"}
        "413": {$ref: "#/components/responses/ContentTooLarge"}
        "415": {$ref: "#/components/responses/UnsupportedMediaType"}
        "500": {$ref: "#/components/responses/EncodingFailed"}
        "503": {$ref: "#/components/responses/StateNotSaved"}

  /__admin/keys/shuffle:
    put:
      operationId: setKeyShuffle
      summary: Turn on or off listing the keys of `/auth/keys` in another order on each fetch.
      tags: [keys]
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: "#/components/schemas/KeyShuffle"}
            example: {shuffled: true}
      responses:
        "200":
          description: The key ring with the new setting.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/KeyRing"}
        "400": {$ref: "#/components/responses/BadRequest"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "413": {$ref: "#/components/responses/ContentTooLarge"}
        "415": {$ref: "#/components/responses/UnsupportedMediaType"}
        "500": {$ref: "#/components/responses/EncodingFailed"}
        "503": {$ref: "#/components/responses/StateNotSaved"}

  /__admin/native-sign-in:
    post:
      operationId: nativeSignIn
      summary: Mint what a native app gets in ASAuthorizationAppleIDCredential (a code redeemable at /auth/token).
      tags: [sign-in]
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: "#/components/schemas/NativeSignIn"}
            example: {persona: jane, bundleID: com.example.app, nonce: abc123}
      responses:
        "200":
          description: The credential.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/NativeCredential"}
        "400":
          description: |
            The body is malformed (`bad_request`), or the sign-in is refused with Apple's error code:
            `invalid_client` (not a registered bundle id) or `invalid_request` (unknown or deleted
            persona, nonce longer than 1024 bytes).
          content:
            application/json:
              schema:
                allOf:
                  - $ref: "#/components/schemas/Error"
                  - properties:
                      error:
                        enum: [bad_request, invalid_client, invalid_request]
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "413": {$ref: "#/components/responses/ContentTooLarge"}
        "415": {$ref: "#/components/responses/UnsupportedMediaType"}
        "500": {$ref: "#/components/responses/EncodingFailed"}
        "503": {$ref: "#/components/responses/StateNotSaved"}

  /__admin/notifications:
    get:
      operationId: listNotifications
      summary: Every server-to-server notification delivery kept, oldest first, with its attempts.
      tags: [notifications]
      responses:
        "200":
          description: The deliveries.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/NotificationList"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "500": {$ref: "#/components/responses/EncodingFailed"}
        "503": {$ref: "#/components/responses/StateNotSaved"}
    post:
      operationId: sendNotification
      summary: Queue a server-to-server notification about a persona for an app group, whatever the world's state.
      tags: [notifications]
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: "#/components/schemas/NotificationRequest"}
            example: {type: consent-revoked, persona: jane, app: com.example.web}
      responses:
        "201":
          description: Queued for delivery (due at once).
          content:
            application/json:
              schema: {$ref: "#/components/schemas/NotificationDelivery"}
        "400": {$ref: "#/components/responses/BadRequest"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "404": {$ref: "#/components/responses/NotFound"}
        "409":
          description: The app group has no notification URL (`no_notification_url`); nothing was queued.
          content:
            application/json:
              schema:
                allOf:
                  - $ref: "#/components/schemas/Error"
                  - properties:
                      error:
                        const: no_notification_url
        "413": {$ref: "#/components/responses/ContentTooLarge"}
        "415": {$ref: "#/components/responses/UnsupportedMediaType"}
        "500": {$ref: "#/components/responses/EncodingFailed"}
        "503": {$ref: "#/components/responses/StateNotSaved"}

  /__admin/notifications/retry:
    post:
      operationId: retryNotifications
      summary: Make every undelivered (pending or failed) notification due now, with a fresh retry schedule.
      tags: [notifications]
      requestBody: {$ref: "#/components/requestBodies/Unread"}
      responses:
        "200":
          description: How many deliveries were made due.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/RetryResult"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "413": {$ref: "#/components/responses/ContentTooLarge"}
        "415": {$ref: "#/components/responses/UnsupportedMediaType"}
        "503": {$ref: "#/components/responses/StateNotSaved"}

  /__admin/apps/{app}/notification-url:
    put:
      operationId: setNotificationURL
      summary: Register (or with null remove) the notification URL of an app group.
      tags: [notifications]
      parameters:
        - $ref: "#/components/parameters/App"
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: "#/components/schemas/NotificationURLChange"}
            example: {url: null}
      responses:
        "200":
          description: The app group and its notification URL now.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/NotificationURL"}
        "400": {$ref: "#/components/responses/BadRequest"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "404": {$ref: "#/components/responses/NotFound"}
        "413": {$ref: "#/components/responses/ContentTooLarge"}
        "415": {$ref: "#/components/responses/UnsupportedMediaType"}
        "503": {$ref: "#/components/responses/StateNotSaved"}

  /__admin/apps/{app}/transfer:
    post:
      operationId: transferApp
      summary: Move an app group to another team now, or schedule it for a later clock time.
      tags: [transfers]
      parameters:
        - $ref: "#/components/parameters/App"
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: "#/components/schemas/TransferRequest"}
            example: {team: OTHERTEAM1}
      responses:
        "201":
          description: Transferred now (no `at`, or `at` not after the clock's current instant).
          content:
            application/json:
              schema: {$ref: "#/components/schemas/AppTransfer"}
        "202":
          description: Scheduled for `at` (later than now); the app and team are checked only when it comes due.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/ScheduledTransfer"}
        "400": {$ref: "#/components/responses/BadRequest"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "404": {$ref: "#/components/responses/NotFound"}
        "409":
          description: The group already belongs to that team, or the transfer limit (1000) is reached (`conflict`).
          content:
            application/json:
              schema:
                allOf:
                  - $ref: "#/components/schemas/Error"
                  - properties:
                      error:
                        const: conflict
        "413": {$ref: "#/components/responses/ContentTooLarge"}
        "415": {$ref: "#/components/responses/UnsupportedMediaType"}
        "500": {$ref: "#/components/responses/EncodingFailed"}
        "503": {$ref: "#/components/responses/StateNotSaved"}

  /__admin/transfers:
    get:
      operationId: listTransfers
      summary: The app transfers made so far.
      tags: [transfers]
      responses:
        "200":
          description: The transfers.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/TransferList"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "500": {$ref: "#/components/responses/EncodingFailed"}
        "503": {$ref: "#/components/responses/StateNotSaved"}

  /__admin/personas:
    get:
      operationId: listPersonas
      summary: Every persona, in scenario order (created ones last), deleted accounts included.
      tags: [personas]
      responses:
        "200":
          description: The personas.
          content:
            application/json:
              schema:
                type: array
                items: {$ref: "#/components/schemas/Persona"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "500": {$ref: "#/components/responses/EncodingFailed"}
        "503": {$ref: "#/components/responses/StateNotSaved"}
    post:
      operationId: createPersona
      summary: Create a persona, or re-create one whose account was deleted (it gets a new `sub`).
      tags: [personas]
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: "#/components/schemas/PersonaCreate"}
            example: {id: kim, firstName: Kim, lastName: Lee, email: kim@example.com}
      responses:
        "201":
          description: The persona as created.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Persona"}
        "400": {$ref: "#/components/responses/BadRequestOrInvalidPersona"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "409": {$ref: "#/components/responses/PersonaExists"}
        "413": {$ref: "#/components/responses/ContentTooLarge"}
        "415": {$ref: "#/components/responses/UnsupportedMediaType"}
        "500": {$ref: "#/components/responses/EncodingFailed"}
        "503": {$ref: "#/components/responses/StateNotSaved"}

  /__admin/personas/{id}:
    get:
      operationId: getPersona
      summary: One persona.
      tags: [personas]
      parameters:
        - $ref: "#/components/parameters/PersonaID"
      responses:
        "200":
          description: The persona.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Persona"}
        "400": {$ref: "#/components/responses/BadRequest"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "404": {$ref: "#/components/responses/NotFound"}
        "500": {$ref: "#/components/responses/EncodingFailed"}
        "503": {$ref: "#/components/responses/StateNotSaved"}
    patch:
      operationId: updatePersona
      summary: Change some of a persona's fields (the rest stay); `id` cannot change.
      tags: [personas]
      parameters:
        - $ref: "#/components/parameters/PersonaID"
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: "#/components/schemas/PersonaPatch"}
            example: {relayForwarding: false}
      responses:
        "200":
          description: The persona after the change.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Persona"}
        "400": {$ref: "#/components/responses/BadRequestOrInvalidPersona"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "404": {$ref: "#/components/responses/NotFound"}
        "413": {$ref: "#/components/responses/ContentTooLarge"}
        "415": {$ref: "#/components/responses/UnsupportedMediaType"}
        "500": {$ref: "#/components/responses/EncodingFailed"}
        "503": {$ref: "#/components/responses/StateNotSaved"}

  /__admin/personas/{id}/revoke-consent:
    post:
      operationId: revokeConsent
      summary: The persona stops using Sign in with Apple with an app group; its codes and tokens end.
      tags: [personas]
      parameters:
        - $ref: "#/components/parameters/PersonaID"
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: "#/components/schemas/ConsentRevocation"}
            example: {client: com.example.web}
      responses:
        "200":
          description: Revoked; the persona.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Persona"}
        "400": {$ref: "#/components/responses/BadRequestOrInvalidPersona"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "404": {$ref: "#/components/responses/NotFound"}
        "413": {$ref: "#/components/responses/ContentTooLarge"}
        "415": {$ref: "#/components/responses/UnsupportedMediaType"}
        "500": {$ref: "#/components/responses/EncodingFailed"}
        "503": {$ref: "#/components/responses/StateNotSaved"}

  /__admin/personas/{id}/delete-account:
    post:
      operationId: deleteAccount
      summary: Delete the persona's Apple Account; every grant ends and sign-in is refused until it is re-created.
      tags: [personas]
      parameters:
        - $ref: "#/components/parameters/PersonaID"
      requestBody: {$ref: "#/components/requestBodies/Unread"}
      responses:
        "200":
          description: Deleted; the persona (still listed).
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Persona"}
        "400":
          description: The account is already deleted (`invalid_persona`).
          content:
            application/json:
              schema:
                allOf:
                  - $ref: "#/components/schemas/Error"
                  - properties:
                      error:
                        const: invalid_persona
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "404": {$ref: "#/components/responses/NotFound"}
        "413": {$ref: "#/components/responses/ContentTooLarge"}
        "415": {$ref: "#/components/responses/UnsupportedMediaType"}
        "500": {$ref: "#/components/responses/EncodingFailed"}
        "503": {$ref: "#/components/responses/StateNotSaved"}

  /__admin/auto-approve:
    get:
      operationId: getAutoApprove
      summary: The headless-sign-in setting (null when off).
      tags: [personas]
      responses:
        "200":
          description: The setting.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/AutoApproveState"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "500": {$ref: "#/components/responses/EncodingFailed"}
        "503": {$ref: "#/components/responses/StateNotSaved"}
    put:
      operationId: setAutoApprove
      summary: Turn headless sign-in on as a persona (every authorization is approved without the consent page).
      tags: [personas]
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: "#/components/schemas/AutoApprove"}
            example: {persona: jane, emailChoice: share}
      responses:
        "200":
          description: The new setting.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/AutoApproveOn"}
        "400": {$ref: "#/components/responses/BadRequestOrInvalidPersona"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "404": {$ref: "#/components/responses/NotFound"}
        "413": {$ref: "#/components/responses/ContentTooLarge"}
        "415": {$ref: "#/components/responses/UnsupportedMediaType"}
        "500": {$ref: "#/components/responses/EncodingFailed"}
        "503": {$ref: "#/components/responses/StateNotSaved"}
    delete:
      operationId: clearAutoApprove
      summary: Turn headless sign-in off.
      tags: [personas]
      responses:
        "200":
          description: Off.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/AutoApproveOff"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "500": {$ref: "#/components/responses/EncodingFailed"}
        "503": {$ref: "#/components/responses/StateNotSaved"}

  /__admin/relay/messages:
    get:
      operationId: listRelayMessages
      summary: The messages the private email relay took, oldest first, optionally for one persona or address.
      tags: [relay]
      parameters:
        - name: persona
          in: query
          required: false
          description: Only this persona's messages (exact persona id).
          schema: {type: string}
        - name: address
          in: query
          required: false
          description: Only messages to this relay address (compared without case).
          schema: {type: string}
      responses:
        "200":
          description: The messages.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/RelayMessageList"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "500": {$ref: "#/components/responses/EncodingFailed"}
        "503": {$ref: "#/components/responses/StateNotSaved"}
    delete:
      operationId: clearRelayMessages
      summary: Empty every relay inbox.
      tags: [relay]
      responses:
        "200":
          description: How many messages were removed.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/ClearedResult"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "503": {$ref: "#/components/responses/StateNotSaved"}

  /__admin/relay/addresses:
    get:
      operationId: listRelayAddresses
      summary: The relay addresses in use (a persona hides their email from an app group of the team), by address.
      tags: [relay]
      responses:
        "200":
          description: The addresses.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/RelayAddressList"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "500": {$ref: "#/components/responses/EncodingFailed"}
        "503": {$ref: "#/components/responses/StateNotSaved"}

  /__admin/relay/inbox:
    get:
      operationId: getRelayInboxPage
      summary: The relay inboxes as an HTML page, optionally for one persona.
      tags: [relay]
      parameters:
        - name: persona
          in: query
          required: false
          description: Only this persona's messages.
          schema: {type: string}
      responses:
        "200":
          description: The inbox page.
          content:
            text/html:
              schema:
                type: string
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "503": {$ref: "#/components/responses/StateNotSaved"}

  /__admin/teams/{team}/email-sources:
    put:
      operationId: setEmailSources
      summary: Replace the domains and addresses the relay takes mail from for a team.
      tags: [relay]
      parameters:
        - $ref: "#/components/parameters/Team"
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: "#/components/schemas/EmailSourcesChange"}
            example: {sources: [example.com, noreply@example.org]}
      responses:
        "200":
          description: The team's sources now (lowercased, duplicates dropped).
          content:
            application/json:
              schema: {$ref: "#/components/schemas/EmailSources"}
        "400": {$ref: "#/components/responses/BadRequest"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "404": {$ref: "#/components/responses/NotFound"}
        "413": {$ref: "#/components/responses/ContentTooLarge"}
        "415": {$ref: "#/components/responses/UnsupportedMediaType"}
        "503": {$ref: "#/components/responses/StateNotSaved"}
    post:
      operationId: addEmailSource
      summary: Register one more domain or address the relay takes mail from for a team (one already registered stays).
      tags: [relay]
      parameters:
        - $ref: "#/components/parameters/Team"
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: "#/components/schemas/EmailSourceAdded"}
            example: {source: mailer.example.com}
      responses:
        "200":
          description: The team's sources now.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/EmailSources"}
        "400": {$ref: "#/components/responses/BadRequest"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "404": {$ref: "#/components/responses/NotFound"}
        "413": {$ref: "#/components/responses/ContentTooLarge"}
        "415": {$ref: "#/components/responses/UnsupportedMediaType"}
        "503": {$ref: "#/components/responses/StateNotSaved"}

  /__admin/teams/{team}/email-sources/{source}:
    delete:
      operationId: removeEmailSource
      summary: Stop taking mail from one registered domain or address for a team.
      tags: [relay]
      parameters:
        - $ref: "#/components/parameters/Team"
        - name: source
          in: path
          required: true
          description: The domain or address, percent-decoded, compared without case (404 when the team has not registered it).
          schema:
            type: string
            minLength: 1
          example: example.com
      responses:
        "200":
          description: The team's sources now.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/EmailSources"}
        "400": {$ref: "#/components/responses/BadRequest"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "404": {$ref: "#/components/responses/NotFound"}
        "503": {$ref: "#/components/responses/StateNotSaved"}

  /__admin/personas/{id}/relay-forwarding:
    put:
      operationId: setRelayForwarding
      summary: Turn the persona's relay forwarding on or off, for the relay address under one app's team or for every address of theirs.
      description: |
        As the person does in Settings › Apple ID › Sign in with Apple › the app › Forward To. With `app`, only the
        persona's relay address under that app's team changes (every app group of the team that the persona
        hides their email from uses it); without, every address does, as changing the persona's
        `relayForwarding` does. The app groups using an address whose forwarding changed are sent
        `email-disabled` or `email-enabled`. Answers the persona's relay addresses in use.
      tags: [relay]
      parameters:
        - $ref: "#/components/parameters/PersonaID"
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: "#/components/schemas/RelayForwardingChange"}
            example: {forwarding: false, app: com.example.web}
      responses:
        "200":
          description: The persona's relay addresses in use, each with its forwarding.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/RelayForwarding"}
        "400": {$ref: "#/components/responses/BadRequestOrInvalidPersona"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "404": {$ref: "#/components/responses/NotFound"}
        "413": {$ref: "#/components/responses/ContentTooLarge"}
        "415": {$ref: "#/components/responses/UnsupportedMediaType"}
        "500": {$ref: "#/components/responses/EncodingFailed"}
        "503": {$ref: "#/components/responses/StateNotSaved"}

  /__admin/tenants:
    get:
      operationId: listTenants
      summary: The tenants (isolated worlds under /t/{name}/), in name order.
      tags: [tenants]
      responses:
        "200":
          description: The tenants.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/TenantList"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "500": {$ref: "#/components/responses/EncodingFailed"}
        "503": {$ref: "#/components/responses/StateNotSaved"}
    post:
      operationId: createTenant
      summary: Make a tenant from the server's scenario, or from scenario text, and start serving it.
      tags: [tenants]
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: "#/components/schemas/TenantCreate"}
            example: {name: job-1234}
      responses:
        "201":
          description: The tenant.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Tenant"}
        "400": {$ref: "#/components/responses/BadRequest"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "409":
          description: |
            The name is taken or being made or removed by another request (`tenant_exists`), or the
            server holds its 100 tenants already (`tenants_full`).
          content:
            application/json:
              schema:
                allOf:
                  - $ref: "#/components/schemas/Error"
                  - properties:
                      error:
                        enum: [tenant_exists, tenants_full]
        "413": {$ref: "#/components/responses/ContentTooLarge"}
        "415": {$ref: "#/components/responses/UnsupportedMediaType"}
        "500": {$ref: "#/components/responses/EncodingFailed"}
        "503": {$ref: "#/components/responses/StateNotSaved"}

  /__admin/tenants/{name}:
    delete:
      operationId: removeTenant
      summary: Remove a tenant with everything it held.
      tags: [tenants]
      parameters:
        - name: name
          in: path
          required: true
          description: The tenant's name (percent-decoded; an invalid escape answers 400).
          schema: {$ref: "#/components/schemas/TenantName"}
          example: job-1234
      responses:
        "200":
          description: Removed.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/TenantRemoved"}
        "400": {$ref: "#/components/responses/BadRequest"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "404": {$ref: "#/components/responses/NotFound"}
        "409":
          description: The tenant is being made or removed by another request (`tenant_exists`).
          content:
            application/json:
              schema:
                allOf:
                  - $ref: "#/components/schemas/Error"
                  - properties:
                      error:
                        const: tenant_exists
        "503": {$ref: "#/components/responses/StateNotSaved"}

  /__admin/timeline:
    get:
      operationId: getTimeline
      summary: How far the loaded timeline has run and what came of each step.
      tags: [timeline]
      responses:
        "200":
          description: The timeline's progress.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Timeline"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "500": {$ref: "#/components/responses/EncodingFailed"}
        "503": {$ref: "#/components/responses/StateNotSaved"}
    post:
      operationId: loadTimeline
      summary: Load a timeline (steps, scenario-file text, or the scenario's own) and start from its first step.
      tags: [timeline]
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: "#/components/schemas/TimelineLoad"}
            example: {scenario: true}
      responses:
        "200":
          description: Loaded; nothing has run yet.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Timeline"}
        "400": {$ref: "#/components/responses/BadRequest"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "413": {$ref: "#/components/responses/ContentTooLarge"}
        "415": {$ref: "#/components/responses/UnsupportedMediaType"}
        "500": {$ref: "#/components/responses/EncodingFailed"}
        "503": {$ref: "#/components/responses/StateNotSaved"}

  /__admin/timeline/step:
    post:
      operationId: stepTimeline
      summary: Run the loaded timeline's next step.
      tags: [timeline]
      requestBody: {$ref: "#/components/requestBodies/Unread"}
      responses:
        "200":
          description: What came of the step.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/StepOutcome"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "409":
          description: Every step has run (`timeline_done`).
          content:
            application/json:
              schema:
                allOf:
                  - $ref: "#/components/schemas/Error"
                  - properties:
                      error:
                        const: timeline_done
        "413": {$ref: "#/components/responses/ContentTooLarge"}
        "415": {$ref: "#/components/responses/UnsupportedMediaType"}
        "500": {$ref: "#/components/responses/EncodingFailed"}
        "503": {$ref: "#/components/responses/StateNotSaved"}

  /__admin/timeline/run:
    post:
      operationId: runTimeline
      summary: Run every remaining step of the loaded timeline.
      tags: [timeline]
      requestBody: {$ref: "#/components/requestBodies/Unread"}
      responses:
        "200":
          description: The timeline's progress; `outcomes` and `passed` cover only the steps this call ran.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Timeline"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "413": {$ref: "#/components/responses/ContentTooLarge"}
        "415": {$ref: "#/components/responses/UnsupportedMediaType"}
        "500": {$ref: "#/components/responses/EncodingFailed"}
        "503": {$ref: "#/components/responses/StateNotSaved"}

components:
  securitySchemes:
    adminToken:
      type: http
      scheme: bearer
      description: |
        Required, on every admin request, only when the server was started with `--admin-token TOKEN`
        (`Authorization: Bearer TOKEN`). Without it the admin API answers loopback clients only and
        ignores `Authorization`.

  parameters:
    After:
      name: after
      in: query
      required: false
      description: Only entries with a sequence number above this one (0 when absent).
      schema:
        type: integer
        minimum: 0
        maximum: 9223372036854775807
    Kid:
      name: kid
      in: path
      required: true
      description: A published key's `kid`.
      schema: {$ref: "#/components/schemas/KeyID"}
      example: mRS1a8XkPq
    App:
      name: app
      in: path
      required: true
      description: A client id (bundle id or Services ID) or an app group's primary App ID, percent-decoded (an invalid escape answers 400).
      schema:
        type: string
        minLength: 1
      example: com.example.web
    PersonaID:
      name: id
      in: path
      required: true
      description: The persona's id, percent-decoded (`jos%C3%A9` names `josé`; an invalid escape answers 400).
      schema:
        type: string
        minLength: 1
        maxLength: 256
      example: jane
    Team:
      name: team
      in: path
      required: true
      description: A Team ID of the scenario, percent-decoded (an invalid escape answers 400).
      schema:
        type: string
        minLength: 1
      example: MOCKTEAM01

  requestBodies:
    Unread:
      required: true
      description: |
        Not read: any body, including an empty one, is accepted. The request must still be declared
        `Content-Type: application/json`.
      content:
        application/json:
          schema: {$ref: "#/components/schemas/UnreadBody"}
          example: {}
    KeyChangeTime:
      required: true
      description: Empty (or `{}`) to make the change now; `at` to schedule it on the mock clock (a time the clock has reached makes it now).
      content:
        application/json:
          schema: {$ref: "#/components/schemas/KeyChangeTime"}
          example: {}

  responses:
    BadRequest:
      description: The request is malformed or refused (`bad_request`); the message says why.
      content:
        application/json:
          schema:
            allOf:
              - $ref: "#/components/schemas/Error"
              - properties:
                  error:
                    const: bad_request
    BadRequestOrInvalidPersona:
      description: |
        The body is malformed (`bad_request`), or the persona change is refused (`invalid_persona`:
        a field is too long, the email has no `@`, a persona that cannot hide
        its email chooses `hide`, the limit of 10000 personas is reached, the account is deleted, the
        app group is unknown, or the persona has not signed in to it).
      content:
        application/json:
          schema:
            allOf:
              - $ref: "#/components/schemas/Error"
              - properties:
                  error:
                    enum: [bad_request, invalid_persona]
    PersonaExists:
      description: A persona with that id exists, its account not deleted (`persona_exists`).
      content:
        application/json:
          schema:
            allOf:
              - $ref: "#/components/schemas/Error"
              - properties:
                  error:
                    const: persona_exists
    NotFound:
      description: What the path or body names does not exist (`not_found`).
      content:
        application/json:
          schema:
            allOf:
              - $ref: "#/components/schemas/Error"
              - properties:
                  error:
                    const: not_found
    KeyChangeScheduled:
      description: |
        Scheduled: `at` is ahead of the mock clock, so the change is made when the clock reaches it (a
        change that fails then is recorded in the event log). The ring is shown as it is now.
      content:
        application/json:
          schema: {$ref: "#/components/schemas/KeyRing"}
    KeyConflict:
      description: |
        The key change cannot be made (`key_conflict`): the kid is published already, 16 keys are
        published, or the key to retire is the active one.
      content:
        application/json:
          schema:
            allOf:
              - $ref: "#/components/schemas/Error"
              - properties:
                  error:
                    const: key_conflict
    Unauthorized:
      description: "The server has an admin token and the request did not send it as `Authorization: Bearer …` (`unauthorized`)."
      headers:
        WWW-Authenticate:
          required: true
          schema:
            type: string
            const: 'Bearer realm="mock-appleid admin"'
      content:
        application/json:
          schema:
            allOf:
              - $ref: "#/components/schemas/Error"
              - properties:
                  error:
                    const: unauthorized
    Forbidden:
      description: |
        Refused: a non-loopback client of a server without an admin token (`not_loopback`), a `Host`
        that is not a loopback or the server's own name (`bad_host`), or a request marked as coming from
        another site by `Sec-Fetch-Site` or `Origin` (`cross_site`).
      content:
        application/json:
          schema:
            allOf:
              - $ref: "#/components/schemas/Error"
              - properties:
                  error:
                    enum: [not_loopback, bad_host, cross_site]
    UnsupportedMediaType:
      description: "A write not declared `Content-Type: application/json` (`unsupported_media_type`)."
      content:
        application/json:
          schema:
            allOf:
              - $ref: "#/components/schemas/Error"
              - properties:
                  error:
                    const: unsupported_media_type
    ContentTooLarge:
      description: |
        The body is over the server's limit and the connection is closed, with an empty body: a request
        that announced it with `Expect: 100-continue`, or any request when the world is shared through a
        database. (Otherwise an oversized body that is read is answered `400 bad_request`.)
    EncodingFailed:
      description: The answer could not be encoded (`encoding_failed`).
      content:
        application/json:
          schema:
            allOf:
              - $ref: "#/components/schemas/Error"
              - properties:
                  error:
                    const: encoding_failed
    KeyGenerationOrEncodingFailed:
      description: Generating the key failed (`key_generation_failed`), or the answer could not be encoded (`encoding_failed`).
      content:
        application/json:
          schema:
            allOf:
              - $ref: "#/components/schemas/Error"
              - properties:
                  error:
                    enum: [key_generation_failed, encoding_failed]
    StateNotSaved:
      description: |
        The world is kept in a state file or database that could not be written (`state_not_saved`);
        once a write has failed, every later request gets this answer too.
      content:
        application/json:
          schema:
            allOf:
              - $ref: "#/components/schemas/Error"
              - properties:
                  error:
                    const: state_not_saved

  schemas:
    Error:
      type: object
      description: Every error the admin API answers itself.
      additionalProperties: false
      required: [error, message]
      properties:
        error:
          type: string
          description: A stable code (`bad_request`, `not_found`, `unauthorized`, …).
        message:
          type: string
          description: What went wrong, in words.

    UnreadBody:
      description: Not read by the server; conventionally `{}`.

    Instant:
      description: |
        A time: epoch seconds, or ISO 8601 text with a `Z` or `±hh:mm` offset and no fractional
        seconds. It must lie between 1970-01-01T00:00:00Z and 9999-12-31T23:59:59Z.
      oneOf:
        - type: number
          minimum: 0
          maximum: 253402300799
        - type: string
          pattern: "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(Z|[+-][0-9]{2}:[0-9]{2})$"

    KeyID:
      type: string
      pattern: "^[A-Za-z0-9_-]{1,64}$"

    Health:
      type: object
      additionalProperties: false
      required: [status, scenario]
      properties:
        status:
          const: ok
        scenario:
          type: string
          description: The scenario's name.
        listeners:
          type: object
          description: Where the server listens, once every listener is bound (a tenant's health gives its own base URLs and no SMTP).
          additionalProperties: false
          required: [http]
          properties:
            http: {$ref: "#/components/schemas/Listener"}
            https: {$ref: "#/components/schemas/Listener"}
            smtp: {$ref: "#/components/schemas/Listener"}

    Listener:
      type: object
      additionalProperties: false
      required: [url, host, port]
      properties:
        url:
          type: string
          description: "`http://127.0.0.1:8080`, `https://localhost:8443` (the certificate names localhost), `smtp://127.0.0.1:2525`."
        host:
          type: string
        port:
          type: integer
          minimum: 1
          maximum: 65535

    ResetResult:
      type: object
      additionalProperties: false
      required: [status, scenario]
      properties:
        status:
          const: reset
        scenario:
          type: string

    JournalEntry:
      type: object
      additionalProperties: false
      required: [sequence, time, method, endpoint, via, status, reason]
      properties:
        sequence:
          type: integer
          minimum: 1
          description: The request's sequence number in the event log.
        time:
          type: string
          format: date-time
          description: The mock clock's instant when the request was answered.
        method:
          type: string
        endpoint:
          type: string
          enum:
            - /auth/authorize
            - /auth/token
            - /auth/revoke
            - /auth/keys
            - /.well-known/openid-configuration
            - /auth/usermigrationinfo
            - native sign-in
        via:
          type: string
          enum: [http, swift, admin, timeline]
        clientID:
          type: string
          description: The request's client_id (at most 256 bytes, longer ones cut and marked with …); absent when it had none.
        status:
          type: integer
          minimum: 100
          maximum: 599
        error:
          type: string
          description: Apple's error code, when the request failed.
        reason:
          type: string
          description: What happened, in plain words (why it failed, or what was issued).

    Journal:
      type: object
      additionalProperties: false
      required: [entries]
      properties:
        entries:
          type: array
          items: {$ref: "#/components/schemas/JournalEntry"}

    Event:
      type: object
      additionalProperties: false
      required: [sequence, time, description, event]
      properties:
        sequence:
          type: integer
          minimum: 1
        time:
          type: string
          format: date-time
          description: The mock-clock instant of the request that caused the event.
        description:
          type: string
        event:
          type: object
          description: |
            The event as typed data: one member named after its kind, whose value holds the kind's
            details (free-form; an empty object for kinds without details).
          minProperties: 1
          maxProperties: 1
          propertyNames:
            enum:
              - signInApproved
              - consentPageShown
              - delivered
              - signInCancelled
              - codeRedeemed
              - tokensRefreshed
              - consentRevoked
              - revocationIgnored
              - personaCreated
              - personaChanged
              - accountDeleted
              - autoApproveChanged
              - keyAdded
              - keyActivated
              - keyRetired
              - jwksShuffleChanged
              - clockChanged
              - faultQueued
              - faultApplied
              - scheduledChangeFailed
              - notificationURLChanged
              - notificationQueued
              - notificationUnrouted
              - notificationAttempted
              - notificationAttemptDue
              - notificationsRetried
              - notificationDropped
              - relayForwardingChanged
              - emailSourcesChanged
              - relayMailDelivered
              - relayMailRefused
              - relayMailForwarded
              - relayInboxesCleared
              - appTransferred
              - teamTokenIssued
              - userMigrated
              - timelineStep
              - worldReset
              - request
          additionalProperties:
            type: object

    EventList:
      type: object
      additionalProperties: false
      required: [events]
      properties:
        events:
          type: array
          items: {$ref: "#/components/schemas/Event"}

    Clock:
      type: object
      additionalProperties: false
      required: [now, epochSeconds, frozen, scheduled]
      properties:
        now:
          type: string
          format: date-time
        epochSeconds:
          type: number
          minimum: 0
        frozen:
          type: boolean
          description: Whether the clock stands still (else it runs on from its instant).
        scheduled:
          type: array
          maxItems: 100
          description: Work scheduled on the clock (key changes, transfers, timeline steps, notification attempts), soonest first; the first 100.
          items:
            type: object
            additionalProperties: false
            required: [at, label]
            properties:
              at:
                type: string
                format: date-time
              label:
                type: string

    ClockChange:
      type: object
      additionalProperties: false
      properties:
        set:
          $ref: "#/components/schemas/Instant"
        advance:
          type: number
          minimum: -3153600000
          maximum: 3153600000
          description: Seconds to move the clock (negative moves it back); the result must stay within 1970…9999.
        frozen:
          type: boolean
          description: Stand still (true) or run on (false) from the new instant.

    Fault:
      type: object
      additionalProperties: false
      required: [id, description]
      properties:
        id:
          type: integer
          minimum: 1
        description:
          type: string
        clientID:
          type: string
          minLength: 1
          maxLength: 256
          description: Only requests or tokens for this client id; absent when it matches every client.
        remaining:
          type: integer
          minimum: 1
          maximum: 10000
          description: How many more matching requests it applies to; absent when it applies until cleared.

    FaultList:
      type: object
      additionalProperties: false
      required: [faults]
      properties:
        faults:
          type: array
          maxItems: 256
          items: {$ref: "#/components/schemas/Fault"}

    EmptyFaultList:
      type: object
      additionalProperties: false
      required: [faults]
      properties:
        faults:
          type: array
          maxItems: 0

    FaultSpec:
      type: object
      description: |
        A fault. `status` is read by `token-server-error` and `keys-unavailable` (default 503),
        `seconds` by `token-delay` and `keys-delay` (required), `error` by `token-error` (required);
        other faults ignore them. It applies to `count` matching requests (default 1), or to every one
        while `always` is true. At most 256 faults are queued at once.
      additionalProperties: false
      required: [fault]
      properties:
        fault:
          type: string
          enum:
            - token-server-error
            - token-delay
            - token-error
            - keys-unavailable
            - keys-delay
            - id-token-expired
            - id-token-not-yet-valid
            - id-token-wrong-issuer
            - id-token-wrong-audience
            - id-token-unknown-kid
            - id-token-bad-signature
            - id-token-no-nonce
        status:
          type: integer
          minimum: 500
          maximum: 599
        seconds:
          type: number
          exclusiveMinimum: 0
          maximum: 120
          description: Real seconds the endpoint waits before answering.
        error:
          type: string
          enum: [invalid_grant, invalid_client]
        clientID:
          type: string
          minLength: 1
          maxLength: 256
          description: Only requests or tokens for this client id (1 to 256 bytes).
        count:
          type: integer
          minimum: 1
          maximum: 10000
        always:
          type: boolean
      oneOf:
        - properties:
            fault:
              enum: [token-delay, keys-delay]
          required: [seconds]
        - properties:
            fault:
              const: token-error
          required: [error]
        - properties:
            fault:
              enum:
                - token-server-error
                - keys-unavailable
                - id-token-expired
                - id-token-not-yet-valid
                - id-token-wrong-issuer
                - id-token-wrong-audience
                - id-token-unknown-kid
                - id-token-bad-signature
                - id-token-no-nonce
      not:
        description: count and always true together are refused.
        required: [count, always]
        properties:
          always:
            const: true

    KeyRing:
      type: object
      additionalProperties: false
      required: [published, active, shuffled]
      properties:
        published:
          type: array
          minItems: 1
          maxItems: 16
          description: The kids published at /auth/keys, in their unshuffled order.
          items: {$ref: "#/components/schemas/KeyID"}
        active:
          $ref: "#/components/schemas/KeyID"
        shuffled:
          type: boolean

    NewKey:
      type: object
      description: |
        A key given as a private-key PEM (RSA of at least 2048 bits for RS256, P-256 for ES256), or
        generated with `generate: true` (RSA 2048 or P-256). `activate: true` also makes it sign;
        `at` schedules both on the mock clock while it is ahead of the clock (202); one the clock has
        reached does them now (201).
      additionalProperties: false
      required: [kid]
      properties:
        kid:
          $ref: "#/components/schemas/KeyID"
        alg:
          type: string
          enum: [RS256, ES256]
          default: RS256
        pem:
          type: string
        generate:
          type: boolean
        activate:
          type: boolean
        at:
          $ref: "#/components/schemas/Instant"
      anyOf:
        - required: [pem]
          properties:
            generate:
              const: false
        - required: [generate]
          properties:
            generate:
              const: true
          not:
            required: [pem]

    KeyChangeTime:
      type: object
      additionalProperties: false
      properties:
        at:
          $ref: "#/components/schemas/Instant"

    KeyShuffle:
      type: object
      additionalProperties: false
      required: [shuffled]
      properties:
        shuffled:
          type: boolean

    NativeSignIn:
      type: object
      additionalProperties: false
      required: [persona, bundleID]
      properties:
        persona:
          type: string
          minLength: 1
        bundleID:
          type: string
          minLength: 1
          description: A registered bundle id (the identity token's `aud`).
        nonce:
          type: string
          maxLength: 1024
          description: Copied verbatim into the identity token (at most 1024 bytes).
        scopes:
          type: array
          description: Default `[name, email]`.
          items:
            type: string
            enum: [name, email]
        emailChoice:
          type: string
          enum: [share, hide]
          description: Share or hide on a first authorization (default the persona's).
        realUserStatus:
          description: Overrides the persona's `real_user_status` for this sign-in.
          enum: [0, 1, 2, "0", "1", "2", unsupported, unknown, likelyReal]

    NativeCredential:
      type: object
      additionalProperties: false
      required: [identityToken, authorizationCode, user, realUserStatus, firstAuthorization]
      properties:
        identityToken:
          type: string
        authorizationCode:
          type: string
        user:
          type: string
          description: The team-scoped user id (`sub`).
        email:
          type: string
          description: The real or relay address; only on a first authorization with the email scope.
        fullName:
          type: object
          description: Only on a first authorization with the name scope.
          additionalProperties: false
          required: [firstName, lastName]
          properties:
            firstName:
              type: string
            lastName:
              type: string
        realUserStatus:
          type: integer
          enum: [0, 1, 2]
        firstAuthorization:
          type: boolean

    NotificationType:
      type: string
      enum: [email-disabled, email-enabled, consent-revoked, account-delete]

    NotificationDelivery:
      type: object
      additionalProperties: false
      required: [id, notification, url, status, attempts, failuresInARow]
      properties:
        id:
          type: string
          description: The JWT's `jti`, the same on every attempt.
        notification:
          type: object
          additionalProperties: false
          required: [type, personaID, groupID, subject, eventTime]
          properties:
            type:
              $ref: "#/components/schemas/NotificationType"
            personaID:
              type: string
            groupID:
              type: string
              description: The primary App ID (the JWT's `aud`).
            subject:
              type: string
              description: The persona's `sub` under the group's team.
            eventTime:
              type: string
              format: date-time
            email:
              type: string
              description: The relay address, for the email events.
        url:
          type: string
        status:
          type: string
          enum: [pending, sending, delivered, failed]
        attempts:
          type: array
          items:
            type: object
            additionalProperties: false
            required: [time, outcome, succeeded]
            properties:
              time:
                type: string
                format: date-time
              outcome:
                type: string
                description: "`HTTP 200`, `HTTP 503`, `connection refused`, …"
              succeeded:
                type: boolean
        nextAttempt:
          type: string
          format: date-time
          description: When the next attempt is due (pending deliveries only).
        failuresInARow:
          type: integer
          minimum: 0

    NotificationList:
      type: object
      additionalProperties: false
      required: [deliveries]
      properties:
        deliveries:
          type: array
          items: {$ref: "#/components/schemas/NotificationDelivery"}

    NotificationRequest:
      type: object
      additionalProperties: false
      required: [type, persona, app]
      properties:
        type:
          type: string
          description: "`account-deleted` is accepted as a spelling of `account-delete`."
          enum: [email-disabled, email-enabled, consent-revoked, account-delete, account-deleted]
        persona:
          type: string
        app:
          type: string
          description: A client id or a primary App ID.

    RetryResult:
      type: object
      additionalProperties: false
      required: [retried]
      properties:
        retried:
          type: integer
          minimum: 0

    NotificationURLChange:
      type: object
      additionalProperties: false
      required: [url]
      properties:
        url:
          type: [string, "null"]
          description: |
            An absolute https URL on a domain name (no IP address, no fragment), or an http(s) loopback URL
            when the scenario allows loopback return URLs; null removes the URL.

    NotificationURL:
      type: object
      additionalProperties: false
      required: [app, notificationURL]
      properties:
        app:
          type: string
          description: The app group's primary App ID.
        notificationURL:
          type: [string, "null"]

    RelayMessage:
      type: object
      additionalProperties: false
      required: [id, receivedAt, envelopeFrom, relayAddress, personaID, teamID, headers, body, size]
      properties:
        id:
          type: string
        receivedAt:
          type: string
          format: date-time
        envelopeFrom:
          type: string
          description: The SMTP `MAIL FROM` (empty for a null sender).
        relayAddress:
          type: string
        personaID:
          type: string
        teamID:
          type: string
        forwardTo:
          type: string
          description: The persona's own address, where Apple would forward it.
        headers:
          type: array
          items:
            type: object
            additionalProperties: false
            required: [name, value]
            properties:
              name:
                type: string
              value:
                type: string
        subject:
          type: string
          description: The `Subject:` header, its RFC 2047 encoded words decoded.
        from:
          type: string
          description: The `From:` header, decoded.
        to:
          type: string
          description: The `To:` header, decoded.
        text:
          type: string
          description: The first `text/plain` part (or the body, when it declares no type), transfer encoding and charset undone.
        html:
          type: string
          description: The first `text/html` part, decoded.
        body:
          type: string
          description: Everything after the header block, as sent (nothing decoded).
        size:
          type: integer
          minimum: 0
        forwarded:
          type: string
          description: How forwarding upstream went, once tried.

    RelayMessageList:
      type: object
      additionalProperties: false
      required: [messages]
      properties:
        messages:
          type: array
          items: {$ref: "#/components/schemas/RelayMessage"}

    RelayAddress:
      type: object
      additionalProperties: false
      required: [address, personaID, teamID, forwarding, appGroups]
      properties:
        address:
          type: string
        personaID:
          type: string
        teamID:
          type: string
        forwarding:
          type: boolean
          description: Whether mail to it is delivered (the person's setting for this address).
        appGroups:
          type: array
          description: The app groups (primary App IDs) that use it.
          items:
            type: string

    RelayForwardingChange:
      type: object
      additionalProperties: false
      required: [forwarding]
      properties:
        forwarding:
          type: boolean
        app:
          type: string
          minLength: 1
          description: A client id or primary App ID; without it, every relay address of the persona's.

    RelayForwarding:
      type: object
      additionalProperties: false
      required: [persona, addresses]
      properties:
        persona:
          type: string
        addresses:
          type: array
          items: {$ref: "#/components/schemas/RelayAddress"}

    RelayAddressList:
      type: object
      additionalProperties: false
      required: [addresses]
      properties:
        addresses:
          type: array
          items: {$ref: "#/components/schemas/RelayAddress"}

    ClearedResult:
      type: object
      additionalProperties: false
      required: [cleared]
      properties:
        cleared:
          type: integer
          minimum: 0

    EmailSourcesChange:
      type: object
      additionalProperties: false
      required: [sources]
      properties:
        sources:
          type: array
          maxItems: 100
          description: The team's new sources (replacing the old ones).
          items:
            type: string
            maxLength: 254
            description: |
              A domain (`example.com`) or an address (`noreply@example.com`): printable ASCII without
              spaces, `<` or `>`, at most one `@` and not first, and a domain part that contains a dot
              but does not start or end with one.
            pattern: '^([\x21-\x3B\x3D\x3F\x41-\x7E]+@)?[\x21-\x2D\x2F-\x3B\x3D\x3F\x41-\x7E][\x21-\x3B\x3D\x3F\x41-\x7E]*\.[\x21-\x3B\x3D\x3F\x41-\x7E]*[\x21-\x2D\x2F-\x3B\x3D\x3F\x41-\x7E]$'

    EmailSourceAdded:
      type: object
      additionalProperties: false
      required: [source]
      properties:
        source:
          type: string
          maxLength: 254
          description: A domain or an address, as in EmailSourcesChange.
          pattern: '^([\x21-\x3B\x3D\x3F\x41-\x7E]+@)?[\x21-\x2D\x2F-\x3B\x3D\x3F\x41-\x7E][\x21-\x3B\x3D\x3F\x41-\x7E]*\.[\x21-\x3B\x3D\x3F\x41-\x7E]*[\x21-\x2D\x2F-\x3B\x3D\x3F\x41-\x7E]$'

    EmailSources:
      type: object
      additionalProperties: false
      required: [team, sources]
      properties:
        team:
          type: string
        sources:
          type: array
          items:
            type: string

    TransferRequest:
      type: object
      additionalProperties: false
      required: [team]
      properties:
        team:
          type: string
          description: The recipient's Team ID.
        at:
          $ref: "#/components/schemas/Instant"

    AppTransfer:
      type: object
      additionalProperties: false
      required: [groupID, fromTeam, toTeam, at, personas]
      properties:
        groupID:
          type: string
        fromTeam:
          type: string
        toTeam:
          type: string
        at:
          type: string
          format: date-time
        personas:
          type: array
          description: The personas who had consented to the group when it moved.
          items:
            type: string

    ScheduledTransfer:
      type: object
      additionalProperties: false
      required: [scheduled, app, team]
      properties:
        scheduled:
          type: string
          format: date-time
        app:
          type: string
        team:
          type: string

    TransferList:
      type: object
      additionalProperties: false
      required: [transfers]
      properties:
        transfers:
          type: array
          items: {$ref: "#/components/schemas/AppTransfer"}

    EmailChoice:
      type: string
      enum: [share, hide]

    Persona:
      type: object
      additionalProperties: false
      required: [id, firstName, lastName, email, emailChoice, realUserStatus, managed, orgID, emailVerified, relayForwarding]
      properties:
        id:
          type: string
          minLength: 1
          maxLength: 256
        firstName:
          type: string
          maxLength: 256
        lastName:
          type: string
          maxLength: 256
        email:
          type: [string, "null"]
          maxLength: 256
          pattern: "@"
        emailChoice:
          $ref: "#/components/schemas/EmailChoice"
        realUserStatus:
          type: string
          enum: [unsupported, unknown, likelyReal]
        managed:
          type: boolean
        orgID:
          type: [string, "null"]
          maxLength: 256
        emailVerified:
          type: boolean
        relayForwarding:
          type: boolean

    PersonaFields:
      description: |
        A persona's fields as the admin API takes them. A member left out, or null, takes its default
        (empty names, no email, `share`, `likelyReal`, not managed, no org id, verified, forwarding on).
        Text is at most 256 bytes; an email must contain `@`; `hide` needs an email and an unmanaged account.
      type: object
      additionalProperties: false
      properties:
        id:
          type: string
          minLength: 1
          maxLength: 256
        firstName:
          type: [string, "null"]
          maxLength: 256
        lastName:
          type: [string, "null"]
          maxLength: 256
        email:
          type: [string, "null"]
          maxLength: 256
          pattern: "@"
        emailChoice:
          type: [string, "null"]
          enum: [share, hide, null]
        realUserStatus:
          description: A name or Apple's number (0 unsupported, 1 unknown, 2 likely real).
          enum: [0, 1, 2, "0", "1", "2", unsupported, unknown, likelyReal, null]
        managed:
          type: [boolean, "null"]
        orgID:
          type: [string, "null"]
          maxLength: 256
        emailVerified:
          type: [boolean, "null"]
        relayForwarding:
          type: [boolean, "null"]

    PersonaCreate:
      allOf:
        - $ref: "#/components/schemas/PersonaFields"
      required: [id]

    PersonaPatch:
      description: |
        The members to change; the others keep their values (null resets one to its default, so
        `"email": null` removes the email). `id`, if given, must be the persona's own.
      allOf:
        - $ref: "#/components/schemas/PersonaFields"

    ConsentRevocation:
      type: object
      additionalProperties: false
      required: [client]
      properties:
        client:
          type: string
          minLength: 1
          description: A client id or an app group's primary App ID.

    AutoApprove:
      type: object
      additionalProperties: false
      required: [persona]
      properties:
        persona:
          type: string
        emailChoice:
          description: Absent or null uses the persona's own choice.
          type: [string, "null"]
          enum: [share, hide, null]

    AutoApproveSetting:
      type: object
      additionalProperties: false
      required: [persona]
      properties:
        persona:
          type: string
        emailChoice:
          $ref: "#/components/schemas/EmailChoice"

    AutoApproveState:
      type: object
      additionalProperties: false
      required: [autoApprove]
      properties:
        autoApprove:
          oneOf:
            - $ref: "#/components/schemas/AutoApproveSetting"
            - type: "null"

    AutoApproveOn:
      type: object
      additionalProperties: false
      required: [autoApprove]
      properties:
        autoApprove:
          $ref: "#/components/schemas/AutoApproveSetting"

    AutoApproveOff:
      type: object
      additionalProperties: false
      required: [autoApprove]
      properties:
        autoApprove:
          type: "null"

    TenantName:
      type: string
      pattern: "^[a-z0-9][a-z0-9_-]{0,62}$"

    Tenant:
      type: object
      additionalProperties: false
      required: [name, scenario, path]
      properties:
        name:
          $ref: "#/components/schemas/TenantName"
        scenario:
          type: string
          description: The tenant's scenario's name.
        path:
          type: string
          pattern: "^/t/[a-z0-9][a-z0-9_-]{0,62}$"
          description: The prefix its endpoints answer under.

    TenantList:
      type: object
      additionalProperties: false
      required: [tenants]
      properties:
        tenants:
          type: array
          maxItems: 100
          items: {$ref: "#/components/schemas/Tenant"}

    TenantCreate:
      type: object
      description: |
        `name` alone makes a world of the server's own scenario; with `yaml` (scenario-file text) another
        scenario's, `file` naming it in messages and `files` giving the text of the key files it names.
      additionalProperties: false
      required: [name]
      properties:
        name:
          $ref: "#/components/schemas/TenantName"
        yaml:
          type: string
        file:
          type: string
        files:
          type: object
          additionalProperties:
            type: string

    TenantRemoved:
      type: object
      additionalProperties: false
      required: [removed]
      properties:
        removed:
          $ref: "#/components/schemas/TenantName"

    StepOutcome:
      type: object
      additionalProperties: false
      required: [index, location, summary, passed, failures, notes]
      properties:
        index:
          type: integer
          minimum: 0
        location:
          type: string
        summary:
          type: string
        passed:
          type: boolean
        failures:
          type: array
          description: Each unmet expectation, in words.
          items:
            type: string
        notes:
          type: array
          items:
            type: string

    Timeline:
      type: object
      additionalProperties: false
      required: [steps, done, passed, outcomes]
      properties:
        steps:
          type: integer
          minimum: 0
          maximum: 1000
        done:
          type: integer
          minimum: 0
          maximum: 1000
        passed:
          type: boolean
          description: Whether every outcome shown passed.
        outcomes:
          type: array
          items: {$ref: "#/components/schemas/StepOutcome"}

    TimelineLoad:
      type: object
      description: |
        `{"scenario": true}` loads the scenario's own timeline (other members are then ignored); otherwise
        exactly one of `timeline` (a list of steps in the scenario file's step format) and `yaml`
        (scenario-file text with a `timeline:`; `file` names it in messages, `files` gives the text of
        the key files it names). At most 1000 steps.
      additionalProperties: false
      properties:
        scenario:
          type: boolean
        timeline:
          type: array
          maxItems: 1000
          items:
            type: object
            required: [do]
            properties:
              do:
                type: string
                enum:
                  - signIn
                  - nativeSignIn
                  - cancel
                  - authorize
                  - exchangeCode
                  - refresh
                  - revokeToken
                  - changePersona
                  - revokeConsent
                  - deleteAccount
                  - createPersona
                  - addKey
                  - activateKey
                  - retireKey
                  - shuffleKeys
                  - queueFault
                  - advanceClock
                  - notify
                  - setNotificationURL
                  - sendMail
                  - setEmailSources
                  - setRelayForwarding
                  - transferApp
                  - userMigration
        yaml:
          type: string
        file:
          type: string
        files:
          type: object
          additionalProperties:
            type: string
      anyOf:
        - required: [scenario]
          properties:
            scenario:
              const: true
        - required: [timeline]
          not:
            required: [yaml]
        - required: [yaml]
          not:
            required: [timeline]
"""#
}
