import { describe, expect, it } from "@effect/vitest"
import {
  consentPage,
  contentSecurityPolicy,
  errorPage,
  escapeHtml,
  type HiddenFields,
  pageHeaders,
  reservedFieldNames,
  signInPage
} from "@bizops/server/OAuth/Pages"
import { prop } from "@bizops/testkit/Prop"
import * as fc from "fast-check"
import { createHash } from "node:crypto"

// --- A small, strict reader for the pages' HTML (no DOM, no dependencies) ---------------------------

type Attributes = ReadonlyMap<string, string>
interface Tag {
  readonly name: string
  readonly closing: boolean
  readonly attributes: Attributes
  readonly start: number
  readonly end: number
}

const unescape = (s: string): string =>
  s.replace(/&(amp|lt|gt|quot|#39);/g, (_, e: string) =>
    e === "amp" ? "&" : e === "lt" ? "<" : e === "gt" ? ">" : e === "quot" ? "\"" : "'")

const allowedTags = new Set([
  "html", "head", "meta", "title", "style", "body", "main", "p", "h1", "h2", "div", "span", "strong",
  "img", "a", "form", "input", "label", "button", "ul", "li", "fieldset", "legend"
])
const allowedAttributes = new Set([
  "lang", "charset", "name", "content", "class", "id", "role", "aria-label", "aria-invalid", "aria-describedby",
  "src", "alt", "width", "height", "referrerpolicy", "href", "target", "rel", "method", "action", "type", "value",
  "required", "autocomplete", "autocapitalize", "spellcheck", "autofocus", "for", "formnovalidate"
])
const tagPattern = /<(\/?)([a-z][a-z0-9]*)((?:\s+[a-z-]+(?:="[^"<>]*")?)*)\s*>/y
const attributePattern = /\s+([a-z-]+)(?:="([^"<>]*)")?/g

/**
 * Reads the document as the strict grammar the pages are written in: the doctype, then tags whose
 * names and attribute names are on the lists above and whose attribute values are double-quoted and
 * free of `"`, `<`, `>`, and text without `<` or `>` in which every `&` starts one of the five
 * entities escapeHtml writes. Anything else (a tag, an attribute or a quote that came from an input)
 * fails the test.
 */
const parse = (html: string): ReadonlyArray<Tag> => {
  const doctype = "<!doctype html>\n"
  expect(html.startsWith(doctype)).toBe(true)
  const tags: Array<Tag> = []
  let i = doctype.length
  while (i < html.length) {
    const lt = html.indexOf("<", i)
    const text = html.slice(i, lt === -1 ? html.length : lt)
    expect(text).not.toMatch(/>/)
    expect(text.replace(/&(amp|lt|gt|quot|#39);/g, "")).not.toMatch(/&/)
    if (lt === -1) break
    tagPattern.lastIndex = lt
    const m = tagPattern.exec(html)
    if (m === null) throw new Error(`not a tag of the grammar at ${lt}: ${html.slice(lt, lt + 80)}`)
    const [whole, slash, name, rest] = m
    expect(allowedTags).toContain(name)
    const attributes = new Map<string, string>()
    for (const a of rest.matchAll(attributePattern)) {
      expect(allowedAttributes).toContain(a[1])
      expect(attributes.has(a[1])).toBe(false)
      expect(a[2] ?? "").not.toMatch(/'/)
      expect(a[2] ?? "").not.toMatch(/&(?!(amp|lt|gt|quot|#39);)/)
      attributes.set(a[1], unescape(a[2] ?? ""))
    }
    tags.push({ name, closing: slash === "/", attributes, start: lt, end: lt + whole.length })
    i = lt + whole.length
  }
  // Elements nest properly (void elements excepted).
  const voids = new Set(["meta", "img", "input"])
  const open: Array<string> = []
  for (const t of tags) {
    if (voids.has(t.name)) expect(t.closing).toBe(false)
    else if (!t.closing) open.push(t.name)
    else expect(open.pop()).toBe(t.name)
  }
  expect(open).toEqual([])
  return tags
}

const opening = (tags: ReadonlyArray<Tag>, name: string) => tags.filter((t) => t.name === name && !t.closing)

/** The text inside the first element with this tag name (tags inside it removed, entities decoded). */
const textOf = (html: string, tags: ReadonlyArray<Tag>, name: string, nth = 0): string => {
  const start = opening(tags, name)[nth]
  const close = tags.find((t) => t.name === name && t.closing && t.start >= start.end)
  if (close === undefined) throw new Error(`no </${name}>`)
  return unescape(html.slice(start.end, close.start).replace(/<[^>]*>/g, ""))
}

const hiddenInputs = (tags: ReadonlyArray<Tag>): Array<[string, string]> =>
  opening(tags, "input")
    .filter((t) => t.attributes.get("type") === "hidden")
    .map((t) => [t.attributes.get("name") ?? "", t.attributes.get("value") ?? ""])

const byId = (tags: ReadonlyArray<Tag>, id: string): Tag => {
  const found = tags.filter((t) => t.attributes.get("id") === id)
  expect(found).toHaveLength(1)
  return found[0]
}

/** Things every page must be: the head, the landmarks, no script, no external resource but an https logo. */
const commonChecks = (html: string): ReadonlyArray<Tag> => {
  const tags = parse(html)
  expect(html).not.toMatch(/<script/i)
  expect(html).not.toMatch(/<link/i)
  expect(html).not.toMatch(/\sstyle=/i)
  expect(opening(tags, "html")[0].attributes.get("lang")).toBe("en")
  const metas = opening(tags, "meta").map((t) => Object.fromEntries(t.attributes))
  expect(metas).toContainEqual({ charset: "utf-8" })
  expect(metas).toContainEqual({ name: "viewport", content: "width=device-width, initial-scale=1" })
  expect(metas).toContainEqual({ name: "referrer", content: "no-referrer" })
  expect(opening(tags, "title")).toHaveLength(1)
  expect(textOf(html, tags, "title").length).toBeGreaterThan(0)
  expect(opening(tags, "main")).toHaveLength(1)
  expect(opening(tags, "h1")).toHaveLength(1)
  // The stylesheet is the only one and matches the CSP's hash.
  expect(opening(tags, "style")).toHaveLength(1)
  const css = textOf(html, tags, "style")
  expect(css).not.toMatch(/url\(|@import/i)
  const hash = createHash("sha256").update(css, "utf8").digest("base64")
  expect(contentSecurityPolicy).toContain(`style-src 'sha256-${hash}'`)
  // The only URL a page loads is an https img src; the only other URL is an <a href> (not loaded).
  for (const t of tags) {
    const src = t.attributes.get("src")
    if (src !== undefined) {
      expect(t.name).toBe("img")
      expect(new URL(src).protocol).toBe("https:")
    }
    if (t.attributes.has("href")) expect(t.name).toBe("a")
  }
  // Ids are unique; every label points at an input that exists.
  const ids = tags.flatMap((t) => t.attributes.has("id") ? [t.attributes.get("id")] : [])
  expect(new Set(ids).size).toBe(ids.length)
  for (const label of opening(tags, "label")) byId(tags, label.attributes.get("for") ?? "")
  return tags
}

// --- Inputs ----------------------------------------------------------------------------------------

const app = { name: "Studio Planner", description: "Plans shoots.", homepageUrl: "https://planner.example/", logoUrl: "https://cdn.example/logo.png" }
const hidden: HiddenFields = {
  response_type: "code",
  client_id: "client_123",
  redirect_uri: "https://planner.example/callback?x=1&y=2",
  scope: "clients:read invoices:write",
  state: "a\"b'c<d>e&f",
  code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
  code_challenge_method: "S256"
}
const scopes = [
  { scope: "clients:read", description: "See your clients" },
  { scope: "invoices:write", description: "Create and change invoices" }
]
const consent = (over: Partial<Parameters<typeof consentPage>[0]> = {}) =>
  consentPage({
    action: "/oauth/authorize/decision",
    csrf: "csrf-token",
    hidden,
    app,
    user: { email: "ada@example.com" },
    scopes,
    organizations: [{ id: "org_1", name: "Ada Photography" }],
    ...over
  })

const hostile: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: "binary" }),
  fc.array(
    fc.oneof(
      fc.constantFrom(
        "<script>alert(1)</script>", "<SCRIPT src=//x>", "<img src=x onerror=alert(1)>", "\"", "'", "<", ">", "&",
        "&amp;", "&lt;", "\" onmouseover=\"x", "' autofocus onfocus='x", "\"><script>", "</style><script>", "</title>",
        "<!--", "-->", "javascript:alert(1)", "https://evil.example/\"><x>", "`", "=", " ", "\n", "\r", "\u0000", "é", "😀"
      ),
      fc.string({ unit: "binary-ascii", maxLength: 4 })
    ),
    { maxLength: 8 }
  ).map((parts) => parts.join(""))
)
const hostileUrl: fc.Arbitrary<string | null> = fc.oneof(
  fc.constant(null),
  hostile,
  hostile.map((s) => `https://example.com/${s}`),
  hostile.map((s) => `http://example.com/?q=${s}`),
  hostile.map((s) => `javascript:${s}`)
)
const hostileFields: fc.Arbitrary<HiddenFields> = fc.dictionary(
  fc.oneof(hostile, fc.constantFrom(...reservedFieldNames)),
  hostile,
  { maxKeys: 6 }
)

const expectedHidden = (csrf: string, fields: HiddenFields): Array<[string, string]> => [
  ["csrf", csrf],
  ...Object.entries(fields).filter(([name]) => !reservedFieldNames.has(name))
]

// --- Tests -----------------------------------------------------------------------------------------

describe("escapeHtml", () => {
  it("escapes the five characters that matter and nothing else", () => {
    expect(escapeHtml(`<a href="x" title='y'>Tom & Jerry</a>`)).toBe(
      "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;Tom &amp; Jerry&lt;/a&gt;"
    )
    expect(escapeHtml("plain text, é 😀")).toBe("plain text, é 😀")
    expect(escapeHtml("&amp;")).toBe("&amp;amp;")
  })

  prop("leaves no markup character and decodes back to its input", [hostile], ([s]) => {
    const escaped = escapeHtml(s)
    expect(escaped).not.toMatch(/[<>"']/)
    expect(escaped.replace(/&(amp|lt|gt|quot|#39);/g, "")).not.toMatch(/&/)
    expect(unescape(escaped)).toBe(s)
  })
})

describe("every input is escaped (property)", () => {
  prop(
    "sign-in page",
    [hostile, hostile, hostileFields, hostile, hostileUrl, fc.option(hostile, { nil: undefined }), fc.option(hostile, { nil: undefined })],
    ([action, csrf, fields, name, logoUrl, email, error]) => {
      const html = signInPage({
        action, csrf, hidden: fields, app: { name, logoUrl },
        ...(email === undefined ? {} : { email }),
        ...(error === undefined ? {} : { error })
      })
      const tags = commonChecks(html)
      expect(opening(tags, "form")[0].attributes.get("action")).toBe(action)
      expect(hiddenInputs(tags)).toEqual(expectedHidden(csrf, fields))
      expect(textOf(html, tags, "h1")).toBe(`Sign in to continue to ${name}`)
      expect(byId(tags, "email").attributes.get("value")).toBe(email ?? "")
      if (error !== undefined) expect(html).toContain(`<div class="alert" id="form-error" role="alert">${escapeHtml(error)}</div>`)
      else expect(html).not.toContain("role=\"alert\"")
    },
    { fastCheck: { numRuns: 300 } }
  )

  prop(
    "consent page",
    [
      hostile, hostile, hostileFields,
      fc.record({ name: hostile, description: fc.option(hostile), homepageUrl: hostileUrl, logoUrl: hostileUrl }),
      hostile,
      fc.array(fc.record({ scope: hostile, description: hostile }), { maxLength: 4 }),
      fc.array(fc.record({ id: hostile, name: hostile }), { minLength: 1, maxLength: 4 })
    ],
    ([action, csrf, fields, appInput, email, scopeList, organizations]) => {
      const html = consentPage({ action, csrf, hidden: fields, app: appInput, user: { email }, scopes: scopeList, organizations })
      const tags = commonChecks(html)
      expect(opening(tags, "form")[0].attributes.get("action")).toBe(action)
      expect(hiddenInputs(tags)).toEqual([
        ...expectedHidden(csrf, fields),
        ...(organizations.length === 1 ? [["organizationId", organizations[0].id]] : [])
      ])
      expect(textOf(html, tags, "h1")).toBe(appInput.name)
      expect(textOf(html, tags, "strong")).toBe(email)
      expect(textOf(html, tags, "h2")).toBe(`${appInput.name} wants to:`)
      const items = opening(tags, "li").map((_, i) => textOf(html, tags, "li", i))
      expect(items).toEqual(scopeList.map((s) => s.description + s.scope))
      const radios = opening(tags, "input").filter((t) => t.attributes.get("type") === "radio")
      expect(radios.map((r) => r.attributes.get("value"))).toEqual(organizations.length > 1 ? organizations.map((o) => o.id) : [])
      for (const a of opening(tags, "a")) expect(["http:", "https:"]).toContain(new URL(a.attributes.get("href") ?? "").protocol)
    },
    { fastCheck: { numRuns: 300 } }
  )

  prop("error page", [hostile, hostile], ([title, message]) => {
    const html = errorPage({ title, message })
    const tags = commonChecks(html)
    expect(textOf(html, tags, "h1")).toBe(title)
    expect(textOf(html, tags, "title")).toBe(`${title} · Business Operations`)
    expect(html).toContain(`role="alert">${escapeHtml(message)}</div>`)
  }, { fastCheck: { numRuns: 300 } })
})

describe("sign-in page", () => {
  const render = () => {
    const page = signInPage({ action: "/oauth/sign-in?x=1&y=2", csrf: "csrf-token", hidden, app: { name: "Studio Planner", logoUrl: null } })
    return { page, tags: commonChecks(page) }
  }

  it("posts one form to the action with the csrf and the request's parameters", () => {
    const { page, tags } = render()
    const forms = opening(tags, "form")
    expect(forms).toHaveLength(1)
    expect(forms[0].attributes.get("method")).toBe("post")
    expect(forms[0].attributes.get("action")).toBe("/oauth/sign-in?x=1&y=2")
    expect(page).toContain(`action="/oauth/sign-in?x=1&amp;y=2"`)
    expect(hiddenInputs(tags)).toEqual([["csrf", "csrf-token"], ...Object.entries(hidden)])
  })

  it("has labelled email and password fields with autocomplete, and one Sign in button", () => {
    const { page, tags } = render()
    const email = byId(tags, "email").attributes
    expect(Object.fromEntries(email)).toMatchObject({ name: "email", type: "email", required: "", autocomplete: "username", value: "" })
    const password = byId(tags, "password").attributes
    expect(Object.fromEntries(password)).toMatchObject({ name: "password", type: "password", required: "", autocomplete: "current-password" })
    expect(password.has("value")).toBe(false)
    expect(opening(tags, "label").map((l) => l.attributes.get("for"))).toEqual(["email", "password"])
    expect(opening(tags, "input").filter((t) => t.attributes.get("type") !== "hidden")).toHaveLength(2)
    const buttons = opening(tags, "button")
    expect(buttons).toHaveLength(1)
    expect(buttons[0].attributes.get("type")).toBe("submit")
    expect(textOf(page, tags, "button")).toBe("Sign in")
    expect(textOf(page, tags, "h1")).toBe("Sign in to continue to Studio Planner")
    expect(page).not.toContain("role=\"alert\"")
    expect(email.has("autofocus")).toBe(true)
  })

  it("shows the error in an alert tied to the fields and keeps the email", () => {
    const failed = signInPage({
      action: "/oauth/sign-in", csrf: "c", hidden: {}, app: { name: "A", logoUrl: null },
      email: "ada@example.com", error: "The email or password is not right."
    })
    const t = commonChecks(failed)
    const alert = byId(t, "form-error")
    expect(alert.attributes.get("role")).toBe("alert")
    expect(failed).toContain(`role="alert">The email or password is not right.</div>`)
    expect(byId(t, "email").attributes.get("value")).toBe("ada@example.com")
    for (const id of ["email", "password"]) {
      expect(byId(t, id).attributes.get("aria-invalid")).toBe("true")
      expect(byId(t, id).attributes.get("aria-describedby")).toBe("form-error")
    }
    // Typing resumes at the password.
    expect(byId(t, "password").attributes.has("autofocus")).toBe(true)
    expect(byId(t, "email").attributes.has("autofocus")).toBe(false)
  })

  it("never renders a hidden field named like one of its own fields", () => {
    const html = signInPage({
      action: "/a", csrf: "real", app: { name: "A", logoUrl: null },
      hidden: { csrf: "forged", email: "x", password: "y", decision: "approve", organizationId: "o", client_id: "c" }
    })
    expect(hiddenInputs(commonChecks(html))).toEqual([["csrf", "real"], ["client_id", "c"]])
  })
})

describe("consent page", () => {
  it("shows the app, the account, the scopes and posts Allow / Cancel in one form", () => {
    const page = consent()
    const tags = commonChecks(page)
    expect(textOf(page, tags, "h1")).toBe("Studio Planner")
    expect(page).toContain("<p class=\"muted\">Plans shoots.</p>")
    expect(page).toContain("Signed in as <strong>ada@example.com</strong>")
    expect(textOf(page, tags, "h2")).toBe("Studio Planner wants to:")
    expect(opening(tags, "ul")).toHaveLength(1)
    expect(opening(tags, "li").map((_, i) => textOf(page, tags, "li", i))).toEqual([
      "See your clientsclients:read",
      "Create and change invoicesinvoices:write"
    ])
    const forms = opening(tags, "form")
    expect(forms).toHaveLength(1)
    expect(Object.fromEntries(forms[0].attributes)).toEqual({ method: "post", action: "/oauth/authorize/decision" })
    const buttons = opening(tags, "button").map((b) => Object.fromEntries(b.attributes))
    expect(buttons).toEqual([
      { type: "submit", name: "decision", value: "deny", class: "button secondary", formnovalidate: "" },
      { type: "submit", name: "decision", value: "approve", class: "button primary" }
    ])
    expect([0, 1].map((i) => textOf(page, tags, "button", i))).toEqual(["Cancel", "Allow"])
    // Everything the form posts lies inside it.
    const form = forms[0]
    const formEnd = tags.find((t) => t.name === "form" && t.closing)?.start ?? 0
    for (const t of [...opening(tags, "input"), ...opening(tags, "button")]) {
      expect(t.start).toBeGreaterThan(form.end)
      expect(t.end).toBeLessThanOrEqual(formEnd)
    }
  })

  it("carries the csrf, the request's parameters and the one organization as hidden fields", () => {
    const tags = commonChecks(consent())
    expect(hiddenInputs(tags)).toEqual([["csrf", "csrf-token"], ...Object.entries(hidden), ["organizationId", "org_1"]])
    expect(opening(tags, "fieldset")).toHaveLength(0)
    expect(opening(tags, "input").filter((t) => t.attributes.get("type") === "radio")).toHaveLength(0)
  })

  it("asks for the organization with a required radio group, none preselected, when there are several", () => {
    const organizations = [{ id: "org_1", name: "Ada Photography" }, { id: "org_2", name: "Ada & Co <Events>" }]
    const page = consent({ organizations })
    const tags = commonChecks(page)
    expect(hiddenInputs(tags).map(([n]) => n)).not.toContain("organizationId")
    expect(opening(tags, "fieldset")).toHaveLength(1)
    expect(textOf(page, tags, "legend")).toBe("Choose the organization Studio Planner will act on")
    const radios = opening(tags, "input").filter((t) => t.attributes.get("type") === "radio")
    expect(radios.map((r) => Object.fromEntries(r.attributes))).toEqual([
      { type: "radio", id: "organization-0", name: "organizationId", value: "org_1", required: "" },
      { type: "radio", id: "organization-1", name: "organizationId", value: "org_2", required: "" }
    ])
    const labels = opening(tags, "label")
    expect(labels.map((l) => l.attributes.get("for"))).toEqual(["organization-0", "organization-1"])
    expect([0, 1].map((i) => textOf(page, tags, "label", i))).toEqual(["Ada Photography", "Ada & Co <Events>"])
    expect(page).toContain("Ada &amp; Co &lt;Events&gt;")
    for (const r of radios) expect(r.attributes.has("checked")).toBe(false)
  })

  it("never renders a hidden field that could forge the decision, the organization or the csrf", () => {
    const tags = commonChecks(consent({ hidden: { decision: "approve", organizationId: "org_evil", csrf: "forged", state: "s" } }))
    expect(hiddenInputs(tags)).toEqual([["csrf", "csrf-token"], ["state", "s"], ["organizationId", "org_1"]])
  })

  it("renders an https logo as a 40x40 img, anything else as a placeholder with the initial", () => {
    const withLogo = commonChecks(consent())
    const imgs = opening(withLogo, "img")
    expect(imgs).toHaveLength(1)
    expect(Object.fromEntries(imgs[0].attributes)).toMatchObject({
      src: "https://cdn.example/logo.png", alt: "Studio Planner", width: "40", height: "40"
    })
    for (const logoUrl of [null, "http://cdn.example/logo.png", "data:image/png;base64,AAAA", "javascript:alert(1)", "//cdn.example/x.png", "not a url"]) {
      const page = consent({ app: { ...app, name: "étude", logoUrl } })
      const tags = commonChecks(page)
      expect(opening(tags, "img")).toHaveLength(0)
      expect(page).not.toContain("cdn.example")
      expect(page).toContain(`<span class="logo placeholder" role="img" aria-label="étude">É</span>`)
    }
    expect(consent({ app: { ...app, name: "  😀 Smile", logoUrl: null } })).toContain(`aria-label="  😀 Smile">😀</span>`)
    expect(consent({ app: { ...app, name: "", logoUrl: null } })).toContain(`aria-label="">?</span>`)
  })

  it("links the homepage only when it is http or https, with rel=noopener noreferrer", () => {
    for (const homepageUrl of ["https://planner.example/about", "http://planner.example/about"]) {
      const tags = commonChecks(consent({ app: { ...app, homepageUrl } }))
      const links = opening(tags, "a")
      expect(links).toHaveLength(1)
      expect(links[0].attributes.get("href")).toBe(homepageUrl)
      expect(links[0].attributes.get("rel")).toBe("noopener noreferrer")
    }
    for (const homepageUrl of [null, "javascript:alert(1)", "data:text/html,x", "ftp://planner.example/", "/relative", "not a url"]) {
      const page = consent({ app: { ...app, homepageUrl, description: null }, hidden: {} })
      expect(opening(commonChecks(page), "a")).toHaveLength(0)
      expect(page).not.toContain("planner.example")
    }
  })

  it("omits an empty description and says so when no scope is requested", () => {
    const page = consent({ app: { ...app, description: null }, scopes: [] })
    const tags = commonChecks(page)
    expect(page).not.toContain("Plans shoots")
    expect(opening(tags, "li")).toHaveLength(0)
    expect(page).toContain("No specific permissions were requested.")
  })
})

describe("error page", () => {
  it("shows the title and message, with no link and no form", () => {
    const page = errorPage({ title: "Unknown app", message: "The app that sent you here is not registered." })
    const tags = commonChecks(page)
    expect(textOf(page, tags, "h1")).toBe("Unknown app")
    expect(textOf(page, tags, "title")).toBe("Unknown app · Business Operations")
    expect(page).toContain("The app that sent you here is not registered.")
    expect(opening(tags, "a")).toHaveLength(0)
    expect(opening(tags, "form")).toHaveLength(0)
    expect(page).not.toMatch(/https?:/)
  })
})

describe("page headers", () => {
  it("allow only the embedded stylesheet and https images, forbid framing and caching", () => {
    expect(contentSecurityPolicy).toMatch(/^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/]+=*'; img-src https:; base-uri 'none'; frame-ancestors 'none'$/)
    expect(pageHeaders).toMatchObject({
      "content-type": "text/html; charset=utf-8",
      "x-frame-options": "DENY",
      "referrer-policy": "no-referrer",
      "cache-control": "no-store"
    })
  })
})
