import MockAppleID

/// The consent page: choose a persona, share or hide the email, edit the name, Continue or Cancel.
///
/// It is a plain form (no script), so keyboards, browsers and HTTP clients can all submit it.
/// It posts to `authorize/consent` with the original request parameters as hidden fields plus
/// ``ConsentForm`` fields.
enum ConsentPage {
    static func render(_ prompt: ConsentPrompt) -> String {
        let request = prompt.request
        let model = Model(
            clientID: request.client.id, redirectURI: request.redirectURI,
            asks: request.scopes.isEmpty ? "no personal information"
                : request.scopes.map { $0 == .name ? "your name" : "your email" }.joined(separator: " and "),
            hidden: request.parameters.pairs.map { HiddenField(name: $0.name, value: $0.value) },
            personas: prompt.choices.enumerated().map { index, choice in PersonaOption(choice, checked: index == 0) },
            asksName: request.scopes.contains(.name), asksEmail: request.scopes.contains(.email))
        return PageTemplates.render(model, with: "consent")
    }

    struct Model {
        let clientID: String
        let redirectURI: String
        let asks: String
        let hidden: [HiddenField]
        let personas: [PersonaOption]
        let asksName: Bool
        let asksEmail: Bool
        let form = ConsentForm.Names()
    }

    /// One persona to choose: `name (id: email, returning/first sign-in, sharing, managed)`.
    struct PersonaOption {
        let id: String
        let name: String
        let details: String
        let checked: Bool

        init(_ choice: PersonaChoice, checked: Bool) {
            let persona = choice.persona
            var details = [persona.email ?? "no email"]
            let sharing = { (choice: EmailChoice) in choice == .hide ? "hides email" : "shares email" }
            switch (choice.consent, persona.email) {
            case let (consent?, _): details.append("returning" + (consent.scopes.contains(.email) ? ", \(sharing(consent.emailChoice))" : ""))
            case (nil, .some): details.append("first sign-in, \(sharing(persona.emailChoice)) by default")
            case (nil, nil): details.append("first sign-in")
            }
            if persona.managed { details.append("managed account") }
            self.id = persona.id
            self.name = "\(persona.firstName) \(persona.lastName)"
            self.details = details.joined(separator: ", ")
            self.checked = checked
        }
    }

    static let template = """
        {{<page}}
        {{$title}}Sign in with Apple{{/title}}
        {{$body}}
        <h1>Sign in to <code>{{clientID}}</code> with your Apple Account</h1>
        <p>The app asks for {{asks}}. It returns to <code>{{redirectURI}}</code>.</p>
        <form method="post" action="authorize/consent">
        {{#hidden}}
        <input type="hidden" name="{{name}}" value="{{value}}">
        {{/hidden}}
        <fieldset><legend>Account</legend>
        {{#personas}}
        <label><input type="radio" name="{{form.persona}}" value="{{id}}"{{#checked}} checked{{/checked}}>
        {{name}} <span class="note">({{id}}: {{details}})</span></label>
        {{/personas}}
        </fieldset>
        {{#asksName}}
        <fieldset><legend>Name (first sign-in only; leave empty to use the account's)</legend>
        <label>First name <input type="text" name="{{form.firstName}}" autocomplete="off"></label>
        <label>Last name <input type="text" name="{{form.lastName}}" autocomplete="off"></label>
        </fieldset>
        {{/asksName}}
        {{#asksEmail}}
        <fieldset><legend>Email (first sign-in only)</legend>
        <label><input type="radio" name="{{form.emailChoice}}" value="" checked> As the account prefers</label>
        <label><input type="radio" name="{{form.emailChoice}}" value="share"> Share My Email</label>
        <label><input type="radio" name="{{form.emailChoice}}" value="hide"> Hide My Email</label>
        </fieldset>
        {{/asksEmail}}
        <button type="submit" name="{{form.action}}" value="continue" autofocus>Continue</button>
        <button type="submit" name="{{form.action}}" value="cancel">Cancel</button>
        </form>
        <p class="note">mock-appleid consent page. Choices below the account apply only to a first sign-in
        to this app group; a returning account shares what it shared before.</p>
        {{/body}}
        {{/page}}
        """
}

/// The fields the consent form adds to the authorization parameters (documented in the README).
enum ConsentForm {
    /// Persona id (required to continue).
    static let persona = "persona"
    /// `share`, `hide`, or empty for the persona's default.
    static let emailChoice = "email_choice"
    static let firstName = "first_name"
    static let lastName = "last_name"
    /// `continue` or `cancel`.
    static let action = "action"

    /// The field names, for the page's template.
    struct Names {
        let persona = ConsentForm.persona
        let emailChoice = ConsentForm.emailChoice
        let firstName = ConsentForm.firstName
        let lastName = ConsentForm.lastName
        let action = ConsentForm.action
    }

    /// Reads the decision from a submitted consent form.
    static func decision(from form: FormParameters) throws(AppleError) -> ConsentDecision {
        if let duplicate = form.firstDuplicate(among: [persona, emailChoice, firstName, lastName, action]) {
            throw AppleError(.invalidRequest, description: "Invalid request.", reason: "consent form field \(duplicate) is given more than once")
        }
        let value = { (name: String) in form.pairs.first { $0.name == name }?.value ?? "" }
        switch value(action) {
        case "cancel":
            return .cancel
        case "continue":
            break
        case let other:
            throw AppleError(.invalidRequest, description: "Invalid request.",
                                           reason: "consent form field action is \"\(other)\"; expected continue or cancel")
        }
        let personaID = value(persona)
        guard !personaID.isEmpty else {
            throw AppleError(.invalidRequest, description: "Invalid request.", reason: "consent form field persona is missing")
        }
        let choiceText = value(emailChoice)
        var choice: EmailChoice?
        if !choiceText.isEmpty {
            guard let parsed = EmailChoice(rawValue: choiceText) else {
                throw AppleError(.invalidRequest, description: "Invalid request.",
                                               reason: "consent form field email_choice is \"\(choiceText)\"; expected share, hide or empty")
            }
            choice = parsed
        }
        let first = value(firstName), last = value(lastName)
        let name = first.isEmpty && last.isEmpty ? nil : PersonName(firstName: first, lastName: last)
        return .approve(personaID: personaID, emailChoice: choice, name: name)
    }
}
