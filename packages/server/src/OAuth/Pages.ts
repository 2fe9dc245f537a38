/**
 * The server-rendered HTML pages of the OAuth 2.0 authorization server: sign-in, consent and the
 * error page shown when the request must not be redirected back to the client.
 *
 * - Pure functions returning complete documents. No JavaScript; the only stylesheet is the embedded
 *   `<style>` element below; the only external resource a page can load is the app's logo, and only
 *   from an https URL.
 * - Every interpolated value goes through `escapeHtml`, text and attribute values alike, and every
 *   attribute value is double-quoted, so no input can open a tag or leave an attribute.
 * - `pageHeaders` are the response headers meant to go with these pages (a CSP that allows exactly
 *   the embedded stylesheet, no framing, no caching).
 */
import { createHash } from "node:crypto"

export interface HiddenFields { readonly [name: string]: string }

const product = "Business Operations"

/** Escapes the five characters that matter in HTML text and in double- or single-quoted attribute values. */
export const escapeHtml = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => {
    switch (c) {
      case "&": return "&amp;"
      case "<": return "&lt;"
      case ">": return "&gt;"
      case "\"": return "&quot;"
      default: return "&#39;"
    }
  })

/**
 * Names of the fields the pages' own controls submit. A hidden field with one of these names is never
 * rendered: the hidden fields carry the authorization request's parameters, which come from the
 * (attacker-controllable) authorization URL, and e.g. `decision=approve` or a second `csrf` among them
 * must not be able to ride along with the user's own choice.
 */
export const reservedFieldNames: ReadonlySet<string> = new Set(["csrf", "email", "password", "decision", "organizationId"])

const stylesheet = [
  ":root{color-scheme:light;--fg:#1f2328;--muted:#57606a;--border:#d0d7de;--primary:#1d4ed8;--primary-hover:#1e40af;--danger-fg:#9b1c1c;--danger-bg:#fef2f2;--danger-border:#f5b5b5}",
  "*,*::before,*::after{box-sizing:border-box}",
  "html{-webkit-text-size-adjust:100%;text-size-adjust:100%}",
  "body{margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center;padding:32px 16px;background:#f3f5f8 linear-gradient(180deg,#e9eef6 0%,#f6f7f9 60%) no-repeat;color:var(--fg);font:16px/1.5 system-ui,-apple-system,\"Segoe UI\",Roboto,\"Helvetica Neue\",Arial,\"Noto Sans\",sans-serif}",
  "main{width:100%;max-width:400px;background:#fff;border:1px solid var(--border);border-radius:12px;box-shadow:0 1px 2px rgba(16,24,40,.06),0 8px 24px rgba(16,24,40,.08);padding:32px;overflow-wrap:anywhere}",
  ".brand{margin:0 0 24px;font-size:13px;font-weight:600;letter-spacing:.04em;text-transform:uppercase;color:var(--muted)}",
  "h1{margin:0 0 8px;font-size:22px;line-height:1.3;font-weight:650}",
  "h2{margin:24px 0 8px;font-size:16px;line-height:1.4;font-weight:600}",
  "p{margin:0 0 16px}",
  "main p:last-child{margin-bottom:0}",
  ".muted{color:var(--muted);font-size:14px}",
  "a{color:var(--primary);text-underline-offset:2px}",
  "a:hover{color:var(--primary-hover)}",
  ".app{display:flex;gap:12px;align-items:flex-start;margin-bottom:16px}",
  ".app h1{margin-bottom:4px}",
  ".app p{margin:0 0 4px}",
  ".logo{flex:none;width:40px;height:40px;border-radius:8px;border:1px solid var(--border);object-fit:cover;background:#fff}",
  ".placeholder{display:inline-flex;align-items:center;justify-content:center;background:#e8ebef;color:#3d444d;font-weight:650;font-size:18px;line-height:1}",
  ".account{padding:10px 12px;border-radius:8px;background:#f6f8fa;border:1px solid #e4e7eb;font-size:14px}",
  ".scopes{margin:0 0 20px;padding-left:22px}",
  ".scopes li{margin:6px 0}",
  ".scope-id{display:block;font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;color:var(--muted)}",
  "fieldset{margin:0 0 20px;padding:0;border:0;min-width:0}",
  "legend{padding:0;margin-bottom:8px;font-weight:600}",
  ".choice{display:flex;gap:10px;align-items:center;padding:10px 12px;margin:0 0 8px;border:1px solid var(--border);border-radius:8px;cursor:pointer}",
  ".choice:hover{background:#f6f8fa}",
  ".choice input{margin:0;width:18px;height:18px;flex:none;accent-color:var(--primary)}",
  ".field{margin:0 0 16px}",
  ".field label{display:block;margin-bottom:6px;font-weight:600;font-size:14px}",
  ".field input{display:block;width:100%;padding:10px 12px;font:inherit;color:inherit;background:#fff;border:1px solid #8c959f;border-radius:8px}",
  ".field input:focus{border-color:var(--primary)}",
  ".field input[aria-invalid=true]{border-color:var(--danger-fg)}",
  ".alert{margin:0 0 16px;padding:10px 12px;border-radius:8px;border:1px solid var(--danger-border);background:var(--danger-bg);color:var(--danger-fg);font-size:14px}",
  ".actions{display:flex;gap:12px;margin-top:8px}",
  ".button{flex:1;display:inline-block;min-height:44px;padding:10px 16px;font:inherit;font-weight:600;line-height:1.4;text-align:center;border-radius:8px;border:1px solid transparent;cursor:pointer}",
  ".primary{background:var(--primary);color:#fff}",
  ".primary:hover{background:var(--primary-hover)}",
  ".secondary{background:#fff;color:var(--fg);border-color:#8c959f}",
  ".secondary:hover{background:#f6f8fa}",
  ".block{width:100%}",
  ".choice:has(input:checked){border-color:var(--primary);background:#eff4ff}",
  "a:focus-visible,button:focus-visible,input:focus-visible{outline:3px solid var(--primary);outline-offset:2px}",
  ".visually-hidden{position:absolute;width:1px;height:1px;margin:-1px;padding:0;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap;border:0}",
  "@media (max-width:480px){body{align-items:flex-start;padding:0;background:#fff}main{max-width:none;min-height:100vh;border:0;border-radius:0;box-shadow:none;padding:24px 20px}}"
].join("\n")

/**
 * The Content-Security-Policy for these pages: nothing but the embedded stylesheet (by its hash) and
 * https images (the app's logo), no framing (the consent page must not be clickjacked). It has no
 * `form-action`: browsers apply it to the redirect that answers the form's POST, which goes to the
 * client's redirect URI.
 */
export const contentSecurityPolicy: string = [
  "default-src 'none'",
  `style-src 'sha256-${createHash("sha256").update(stylesheet, "utf8").digest("base64")}'`,
  "img-src https:",
  "base-uri 'none'",
  "frame-ancestors 'none'"
].join("; ")

/** The response headers to send with every page. */
export const pageHeaders: Readonly<Record<string, string>> = {
  "content-type": "text/html; charset=utf-8",
  "content-security-policy": contentSecurityPolicy,
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store"
}

const document = (title: string, body: string): string =>
  `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex, nofollow">
<title>${escapeHtml(title)} · ${product}</title>
<style>${stylesheet}</style>
</head>
<body>
<main>
<p class="brand">${product}</p>
${body}
</main>
</body>
</html>
`

/** The URL when it parses and has one of the given protocols, else null. */
const urlWith = (raw: string | null, protocols: ReadonlyArray<string>): URL | null => {
  if (raw === null) return null
  try {
    const url = new URL(raw)
    return protocols.includes(url.protocol) ? url : null
  } catch {
    return null
  }
}

/** The first grapheme of the name, upper-cased, for the logo placeholder. */
const initial = (name: string): string => {
  for (const { segment } of new Intl.Segmenter("en", { granularity: "grapheme" }).segment(name.trim())) {
    return segment.toLocaleUpperCase("en")
  }
  return "?"
}

const logo = (app: { readonly name: string; readonly logoUrl: string | null }): string => {
  const url = urlWith(app.logoUrl, ["https:"])
  return url === null
    ? `<span class="logo placeholder" role="img" aria-label="${escapeHtml(app.name)}">${escapeHtml(initial(app.name))}</span>`
    : `<img class="logo" src="${escapeHtml(url.href)}" alt="${escapeHtml(app.name)}" width="40" height="40" referrerpolicy="no-referrer">`
}

const hiddenInput = (name: string, value: string): string =>
  `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`

const hiddenInputs = (csrf: string, hidden: HiddenFields): string =>
  [
    hiddenInput("csrf", csrf),
    ...Object.entries(hidden).filter(([name]) => !reservedFieldNames.has(name)).map(([name, value]) => hiddenInput(name, value))
  ].join("\n")

export const signInPage = (input: {
  readonly action: string
  readonly csrf: string
  readonly hidden: HiddenFields
  readonly app: { readonly name: string; readonly logoUrl: string | null }
  readonly email?: string
  readonly error?: string
}): string => {
  const name = escapeHtml(input.app.name)
  const hasError = input.error !== undefined
  const invalid = hasError ? ` aria-invalid="true" aria-describedby="form-error"` : ""
  const email = input.email ?? ""
  // Focus lands where typing starts: the password when the email is already filled in.
  const emailFocus = email === "" ? " autofocus" : ""
  const passwordFocus = email === "" ? "" : " autofocus"
  return document(
    `Sign in to ${input.app.name}`,
    `<div class="app">
${logo(input.app)}
<h1>Sign in to continue to ${name}</h1>
</div>
${hasError ? `<div class="alert" id="form-error" role="alert">${escapeHtml(input.error ?? "")}</div>\n` : ""}<form method="post" action="${escapeHtml(input.action)}">
${hiddenInputs(input.csrf, input.hidden)}
<div class="field">
<label for="email">Email</label>
<input id="email" name="email" type="email" value="${escapeHtml(email)}" required autocomplete="username" autocapitalize="none" spellcheck="false"${invalid}${emailFocus}>
</div>
<div class="field">
<label for="password">Password</label>
<input id="password" name="password" type="password" required autocomplete="current-password"${invalid}${passwordFocus}>
</div>
<button type="submit" class="button primary block">Sign in</button>
</form>`
  )
}

export const consentPage = (input: {
  readonly action: string
  readonly csrf: string
  readonly hidden: HiddenFields
  readonly app: {
    readonly name: string
    readonly description: string | null
    readonly homepageUrl: string | null
    readonly logoUrl: string | null
  }
  readonly user: { readonly email: string }
  readonly scopes: ReadonlyArray<{ readonly scope: string; readonly description: string }>
  readonly organizations: ReadonlyArray<{ readonly id: string; readonly name: string }>
}): string => {
  const name = escapeHtml(input.app.name)
  const homepage = urlWith(input.app.homepageUrl, ["http:", "https:"])
  const description = input.app.description === null || input.app.description.trim() === ""
    ? ""
    : `\n<p class="muted">${escapeHtml(input.app.description)}</p>`
  const homepageLink = homepage === null
    ? ""
    : `\n<p class="muted"><a href="${escapeHtml(homepage.href)}" target="_blank" rel="noopener noreferrer">${escapeHtml(homepage.host)}<span class="visually-hidden"> (opens in a new tab)</span></a></p>`
  const scopes = input.scopes.length === 0
    ? `<p class="muted">No specific permissions were requested.</p>`
    : `<ul class="scopes">\n${
      input.scopes.map((s) =>
        `<li>${escapeHtml(s.description)}<span class="scope-id">${escapeHtml(s.scope)}</span></li>`
      ).join("\n")
    }\n</ul>`
  // Several organizations: a required radio group with none preselected. Which organization's data
  // the app gets is the one consequential choice on this page, and a preselected default would let
  // a hurried "Allow" grant access to whichever organization happened to be listed first. The browser
  // asks for a choice before submitting; Cancel has formnovalidate so it never needs one.
  const organizations = input.organizations.length === 1
    ? `\n${hiddenInput("organizationId", input.organizations[0].id)}`
    : input.organizations.length === 0
    ? ""
    : `\n<fieldset>
<legend>Choose the organization ${name} will act on</legend>
${
      input.organizations.map((org, i) =>
        `<label class="choice" for="organization-${i}"><input type="radio" id="organization-${i}" name="organizationId" value="${
          escapeHtml(org.id)
        }" required><span>${escapeHtml(org.name)}</span></label>`
      ).join("\n")
    }
</fieldset>`
  // Cancel comes first in the document: it is what an implicit submission (Enter) picks, and the
  // visual order matches the tab order.
  return document(
    `Allow ${input.app.name} access?`,
    `<div class="app">
${logo(input.app)}
<div>
<h1>${name}</h1>${description}${homepageLink}
</div>
</div>
<p class="account">Signed in as <strong>${escapeHtml(input.user.email)}</strong></p>
<h2>${name} wants to:</h2>
${scopes}
<form method="post" action="${escapeHtml(input.action)}">
${hiddenInputs(input.csrf, input.hidden)}${organizations}
<p class="muted">Only allow apps you trust with your business data.</p>
<div class="actions">
<button type="submit" name="decision" value="deny" class="button secondary" formnovalidate>Cancel</button>
<button type="submit" name="decision" value="approve" class="button primary">Allow</button>
</div>
</form>`
  )
}

export const errorPage = (input: { readonly title: string; readonly message: string }): string =>
  document(
    input.title,
    `<h1>${escapeHtml(input.title)}</h1>
<div class="alert" role="alert">${escapeHtml(input.message)}</div>
<p class="muted">For your safety, you were not sent back to the app. You can close this page.</p>`
  )
