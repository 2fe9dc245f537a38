/// <reference lib="dom" />
/**
 * The sign-in and consent pages in a real browser: headless Chromium (Debian's chromium package, which
 * `.ci/run` installs when missing) driven by puppeteer-core through a whole authorization, as a person
 * would: type the email and password, choose an organization, press Allow (and, on the phone, Cancel).
 *
 * The screenshots are written to a temporary folder (their paths are printed) and checked for what a
 * person would see: the image has the viewport's size, the card and its buttons are on screen, the
 * primary button is painted in the primary colour, the text is large enough and has enough contrast, and
 * no console error, script error, failed resource or Content-Security-Policy violation happened.
 */
import { expect, layer } from "@effect/vitest"
import { chromiumPath, TestServer, TestServerLive } from "@bizops/testkit"
import { Effect } from "effect"
import { createHash, randomBytes } from "node:crypto"
import { existsSync } from "node:fs"
import { mkdtemp, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { inflateSync } from "node:zlib"
import puppeteer, { type Browser, type BrowserContext, type HTTPRequest, type Page, type Viewport } from "puppeteer-core"

const REAL_CLOCK = { excludeTestServices: true } as const

const REDIRECT_URI = "https://app.example.com/oauth/callback"
const PASSWORD = "correct horse battery staple"

const DESKTOP: Viewport = { width: 1280, height: 800, deviceScaleFactor: 1 }
const PHONE: Viewport = { width: 390, height: 844, deviceScaleFactor: 2, isMobile: true, hasTouch: true }


// --- PNG: the IHDR size, and the pixels of an 8-bit, non-interlaced RGB or RGBA image ---------------

interface Png {
  readonly width: number
  readonly height: number
  /** Bytes per pixel: 3 (RGB) or 4 (RGBA). */
  readonly channels: number
  readonly pixels: Uint8Array
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])

/** Width and height from the IHDR chunk, which must come first. */
const pngSize = (png: Buffer): { readonly width: number; readonly height: number } => {
  expect(png.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true)
  expect(png.toString("latin1", 12, 16)).toBe("IHDR")
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) }
}

const paeth = (a: number, b: number, c: number) => {
  const p = a + b - c
  const pa = Math.abs(p - a)
  const pb = Math.abs(p - b)
  const pc = Math.abs(p - c)
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c
}

/** Decodes the image data (inflate of the IDAT chunks, then the five row filters of PNG). */
const decodePng = (png: Buffer): Png => {
  const { width, height } = pngSize(png)
  const bitDepth = png[24]
  const colorType = png[25]
  const interlace = png[28]
  if (bitDepth !== 8 || (colorType !== 2 && colorType !== 6) || interlace !== 0) {
    throw new Error(`unexpected PNG format: bit depth ${bitDepth}, colour type ${colorType}, interlace ${interlace}`)
  }
  const channels = colorType === 6 ? 4 : 3
  const idat: Array<Buffer> = []
  for (let at = 8; at < png.length;) {
    const length = png.readUInt32BE(at)
    const type = png.toString("latin1", at + 4, at + 8)
    if (type === "IDAT") idat.push(png.subarray(at + 8, at + 8 + length))
    if (type === "IEND") break
    at += 12 + length
  }
  const raw = inflateSync(Buffer.concat(idat))
  const stride = width * channels
  expect(raw.length).toBe(height * (stride + 1))
  const pixels = new Uint8Array(height * stride)
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1))
    const row = y * stride
    const up = row - stride
    for (let x = 0; x < stride; x++) {
      const a = x >= channels ? pixels[row + x - channels] : 0
      const b = y > 0 ? pixels[up + x] : 0
      const c = x >= channels && y > 0 ? pixels[up + x - channels] : 0
      const predictor = filter === 0 ? 0 : filter === 1 ? a : filter === 2 ? b : filter === 3 ? (a + b) >> 1 : filter === 4 ? paeth(a, b, c) : NaN
      if (Number.isNaN(predictor)) throw new Error(`unknown PNG filter ${filter} in row ${y}`)
      pixels[row + x] = (line[x] + predictor) & 0xff
    }
  }
  return { width, height, channels, pixels }
}

type Rgb = readonly [number, number, number]

const pixelAt = (png: Png, x: number, y: number): Rgb => {
  const at = (Math.round(y) * png.width + Math.round(x)) * png.channels
  return [png.pixels[at], png.pixels[at + 1], png.pixels[at + 2]]
}

const near = (actual: Rgb, expected: Rgb, tolerance = 6) => actual.every((v, i) => Math.abs(v - expected[i]) <= tolerance)

/** How many distinct colours the image has (a blank page has one; a gradient alone has a few dozen). */
const distinctColours = (png: Png): number => {
  const seen = new Set<number>()
  for (let at = 0; at < png.pixels.length; at += png.channels) {
    seen.add((png.pixels[at] << 16) | (png.pixels[at + 1] << 8) | png.pixels[at + 2])
  }
  return seen.size
}

// --- What the page shows, measured in the browser -----------------------------------------------------

interface Box {
  readonly x: number
  readonly y: number
  readonly width: number
  readonly height: number
}

interface TextStyle {
  readonly what: string
  readonly fontSize: number
  readonly color: string
  readonly background: string
}

interface Layout {
  readonly viewportWidth: number
  readonly viewportHeight: number
  readonly scrollWidth: number
  /** The card, in the viewport's coordinates. */
  readonly card: Box
  /** Where the card starts in the document (the viewport's top when not scrolled). */
  readonly cardTop: number
  readonly buttons: ReadonlyArray<Box & { readonly label: string; readonly visible: boolean }>
  readonly texts: ReadonlyArray<TextStyle>
  readonly stylesheetRules: number
}

/** Runs in the page: the card, the buttons, and the style of the text people read. */
const measure = (page: Page): Promise<Layout> =>
  page.evaluate(() => {
    const box = (e: Element) => {
      const r = e.getBoundingClientRect()
      return { x: r.x, y: r.y, width: r.width, height: r.height }
    }
    /** The first non-transparent background colour, from the element up to the root. */
    const background = (e: Element | null): string => {
      for (let at = e; at !== null; at = at.parentElement) {
        const colour = getComputedStyle(at).backgroundColor
        if (colour !== "rgba(0, 0, 0, 0)" && colour !== "transparent") return colour
      }
      return "rgb(255, 255, 255)"
    }
    const card = document.querySelector("main")
    if (card === null) throw new Error("the page has no <main> card")
    const readable = Array.from(document.querySelectorAll("h1, h2, label, input[type=email], input[type=password], button, li, .account, .alert, legend, .choice span"))
    const sheets = Array.from(document.styleSheets)
    return {
      viewportWidth: window.innerWidth,
      viewportHeight: window.innerHeight,
      scrollWidth: document.documentElement.scrollWidth,
      card: box(card),
      cardTop: card.getBoundingClientRect().top + window.scrollY,
      buttons: Array.from(document.querySelectorAll("button")).map((b) => {
        const style = getComputedStyle(b)
        return { ...box(b), label: b.textContent?.trim() ?? "", visible: style.visibility === "visible" && style.display !== "none" && Number(style.opacity) > 0 }
      }),
      texts: readable.map((e) => {
        const style = getComputedStyle(e)
        return {
          what: `${e.tagName.toLowerCase()}${e.id === "" ? "" : `#${e.id}`} "${(e.textContent ?? "").trim().slice(0, 30)}"`,
          fontSize: parseFloat(style.fontSize),
          color: style.color,
          background: background(e)
        }
      }),
      stylesheetRules: sheets.reduce((n, s) => n + s.cssRules.length, 0)
    }
  })

const rgbOf = (css: string): Rgb => {
  const m = /^rgba?\((\d+(?:\.\d+)?),\s*(\d+(?:\.\d+)?),\s*(\d+(?:\.\d+)?)/.exec(css)
  if (m === null) throw new Error(`not an rgb() colour: ${css}`)
  return [Number(m[1]), Number(m[2]), Number(m[3])]
}

/** WCAG 2 contrast ratio of two colours. */
const contrast = (a: Rgb, b: Rgb): number => {
  const luminance = ([r, g, bl]: Rgb) => {
    const lin = (v: number) => {
      const s = v / 255
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4
    }
    return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(bl)
  }
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x)
  return (hi + 0.05) / (lo + 0.05)
}

const PRIMARY: Rgb = [0x1d, 0x4e, 0xd8]
const WHITE: Rgb = [255, 255, 255]

/**
 * Takes the screenshot, writes it to the folder and checks it: the PNG has the viewport's size, is not
 * blank, and shows the card and the primary button where the browser laid them out.
 */
const screenshot = async (page: Page, viewport: Viewport, folder: string, name: string, primaryLabel: string) => {
  const png = Buffer.from(await page.screenshot({ type: "png" }))
  const path = join(folder, `${name}.png`)
  await writeFile(path, png)
  console.log(`screenshot: ${path}`)
  const layout = await measure(page)

  // The page fits the viewport's width (no sideways scrolling) and the card is a sensible size.
  expect(layout.viewportWidth).toBe(viewport.width)
  expect(layout.scrollWidth).toBeLessThanOrEqual(viewport.width)
  expect(layout.card.x).toBeGreaterThanOrEqual(0)
  expect(layout.card.x + layout.card.width).toBeLessThanOrEqual(viewport.width + 0.5)
  expect(layout.cardTop).toBeGreaterThanOrEqual(0)
  expect(layout.cardTop).toBeLessThan(viewport.height / 2)
  expect(layout.card.width).toBeGreaterThanOrEqual(Math.min(320, viewport.width - 40))
  expect(layout.card.width).toBeLessThanOrEqual(Math.max(480, viewport.width))
  expect(layout.card.height).toBeGreaterThan(200)
  if (viewport.width >= 800) {
    // On a desktop the card is a box centred across the page, with the page's background around it.
    expect(Math.abs(layout.card.x + layout.card.width / 2 - viewport.width / 2)).toBeLessThan(2)
    expect(layout.card.width).toBeLessThanOrEqual(480)
  }
  // The embedded stylesheet applied (a CSP hash mismatch would leave an unstyled page).
  expect(layout.stylesheetRules).toBeGreaterThan(20)
  // Buttons: visible on screen, inside the card, tall enough to tap.
  expect(layout.buttons.length).toBeGreaterThan(0)
  for (const button of layout.buttons) {
    expect(button.visible).toBe(true)
    expect(button.height).toBeGreaterThanOrEqual(44)
    expect(button.width).toBeGreaterThanOrEqual(80)
    expect(button.x).toBeGreaterThanOrEqual(layout.card.x)
    expect(button.x + button.width).toBeLessThanOrEqual(layout.card.x + layout.card.width + 0.5)
    expect(button.y).toBeGreaterThanOrEqual(0)
    expect(button.y + button.height, `the button "${button.label}" is on screen`).toBeLessThanOrEqual(viewport.height)
  }
  // Text people read: at least 14 px, and WCAG AA contrast (4.5:1) with its background.
  for (const text of layout.texts) {
    expect(text.fontSize, text.what).toBeGreaterThanOrEqual(14)
    expect(contrast(rgbOf(text.color), rgbOf(text.background)), text.what).toBeGreaterThanOrEqual(4.5)
  }

  const scale = viewport.deviceScaleFactor ?? 1
  expect(pngSize(png)).toEqual({ width: viewport.width * scale, height: viewport.height * scale })
  const image = decodePng(png)
  // Text, borders, shadows and a gradient: many colours, not a blank or single-colour image.
  expect(distinctColours(image)).toBeGreaterThan(50)
  // The primary button is painted in the primary colour (sampled beside its label).
  const primary = layout.buttons.find((b) => b.label === primaryLabel)
  expect(primary, `a button "${primaryLabel}"`).toBeDefined()
  if (primary !== undefined) {
    expect(pixelAt(image, (primary.x + 6) * scale, (primary.y + primary.height / 2) * scale)).toSatisfy((p: Rgb) => near(p, PRIMARY))
  }
  // The card is white inside its padding; on a desktop the page around it is not.
  const visibleTop = Math.max(layout.card.y, 0)
  const visibleBottom = Math.min(layout.card.y + layout.card.height, viewport.height)
  expect(pixelAt(image, (layout.card.x + 12) * scale, ((visibleTop + visibleBottom) / 2) * scale)).toSatisfy((p: Rgb) => near(p, WHITE, 1))
  if (viewport.width >= 800) {
    expect(pixelAt(image, 10 * scale, 10 * scale)).toSatisfy((p: Rgb) => !near(p, WHITE, 4))
  }
  return { path, layout }
}

/** Everything that went wrong in the browser: console errors, script errors, failed requests, CSP violations. */
const watch = async (page: Page, problems: Array<string>) => {
  page.on("console", (message) => {
    if (message.type() === "error" || message.type() === "warn") problems.push(`console ${message.type()}: ${message.text()}`)
  })
  page.on("pageerror", (error) => problems.push(`page error: ${String(error)}`))
  page.on("requestfailed", (request) => problems.push(`request failed: ${request.url()} ${request.failure()?.errorText ?? ""}`))
  await page.exposeFunction("reportCspViolation", (text: string) => {
    problems.push(`CSP violation: ${text}`)
  })
  await page.evaluateOnNewDocument(() => {
    document.addEventListener("securitypolicyviolation", (event) => {
      const report: unknown = Reflect.get(window, "reportCspViolation")
      if (typeof report === "function") report(`${event.violatedDirective} blocked ${event.blockedURI}`)
    })
  })
}

/**
 * The client's redirect URI is answered in the browser (nothing listens there): a request to it is
 * recorded and gets a small page; every other request goes to the server, and nothing else is loaded
 * (no logo, no other site).
 */
const interceptRedirects = async (page: Page, serverUrl: string, redirects: Array<string>, problems: Array<string>) => {
  await page.setRequestInterception(true)
  page.on("request", (request: HTTPRequest) => {
    const url = request.url()
    if (url.startsWith(REDIRECT_URI)) {
      redirects.push(url)
      void request.respond({ status: 200, contentType: "text/html", body: "<!doctype html><title>App</title><p>Back at the app" })
    } else if (url === `${new URL(REDIRECT_URI).origin}/favicon.ico`) {
      void request.respond({ status: 204, body: "" }) // the browser asks the app's site for its icon
    } else if (url.startsWith(serverUrl)) {
      void request.continue()
    } else {
      problems.push(`unexpected request: ${url}`)
      void request.abort()
    }
  })
}

const pkce = () => {
  const verifier = randomBytes(32).toString("base64url")
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") }
}

/** Signs in on the page like a person: click the field, type, press the button. */
const signIn = async (page: Page, email: string) => {
  await page.click("#email")
  await page.keyboard.type(email)
  await page.click("#password")
  await page.keyboard.type(PASSWORD)
  const [response] = await Promise.all([page.waitForNavigation(), page.click("button[type=submit]")])
  return response
}

const submitBy = async (page: Page, selector: string) => {
  const [response] = await Promise.all([page.waitForNavigation(), page.click(selector)])
  return response
}

const openContext = (browser: Browser) =>
  Effect.acquireRelease(Effect.promise(() => browser.createBrowserContext()), (context: BrowserContext) => Effect.promise(() => context.close()))

layer(TestServerLive, REAL_CLOCK)("OAuth pages in headless Chromium", (it) => {
  it.effect("sign-in and consent pages on a desktop and a phone: screenshots, a real sign-in, Allow and Cancel", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const executablePath = chromiumPath()
      if (!existsSync(executablePath)) {
        return yield* Effect.die(
          new Error(`Chromium is not installed (looked for ${executablePath}; set CHROMIUM_PATH or install Debian's chromium package, as .ci/run does)`)
        )
      }

      // Fixtures: a user of two organizations, an app without a logo (nothing to fetch from the internet).
      const home = yield* server.organization()
      const second = yield* server.organization()
      const email = `ada.${randomBytes(3).toString("hex")}@example.com`
      const { userId } = yield* Effect.orDie(server.oauth.createUser({ email, password: PASSWORD, organizationId: home.organizationId }))
      yield* Effect.orDie(server.oauth.addUserToOrganization(userId, second.organizationId))
      const app = yield* Effect.orDie(server.oauth.createApp({
        name: "Ledger Sync",
        description: "Keeps your books in step with your invoices.",
        homepageUrl: "https://ledger-sync.example.com",
        redirectUris: [REDIRECT_URI],
        scopes: ["read:clients", "write:clients", "offline_access"]
      }))
      const authorizeUrl = (state: string, challenge: string) =>
        `${server.baseUrl}/api/auth/oauth2/authorize?${new URLSearchParams({
          client_id: app.clientId,
          redirect_uri: REDIRECT_URI,
          response_type: "code",
          scope: "read:clients write:clients offline_access",
          state,
          code_challenge: challenge,
          code_challenge_method: "S256"
        })}`

      const folder = yield* Effect.promise(() => mkdtemp(join(tmpdir(), "bizops-oauth-screenshots-")))
      const browser = yield* Effect.acquireRelease(
        Effect.promise(() =>
          puppeteer.launch({ executablePath, headless: true, args: ["--no-sandbox", "--disable-dev-shm-usage"] })
        ),
        (b) => Effect.promise(() => b.close())
      )

      // --- Desktop: sign in, choose the second organization, Allow. ---------------------------------
      const desktop = yield* Effect.promise(() => browser.newPage())
      const desktopProblems: Array<string> = []
      const desktopRedirects: Array<string> = []
      const desktopState = randomBytes(12).toString("base64url")
      const desktopPkce = pkce()
      yield* Effect.promise(async () => {
        await watch(desktop, desktopProblems)
        await interceptRedirects(desktop, server.baseUrl, desktopRedirects, desktopProblems)
        await desktop.setViewport(DESKTOP)
      })

      const signInResponse = yield* Effect.promise(() => desktop.goto(authorizeUrl(desktopState, desktopPkce.challenge)))
      expect(signInResponse?.status()).toBe(200)
      expect(signInResponse?.headers()["content-security-policy"]).toContain("default-src 'none'")
      expect(yield* Effect.promise(() => desktop.title())).toBe("Sign in to Ledger Sync · Business Operations")
      expect(yield* Effect.promise(() => desktop.$eval("h1", (e) => e.textContent))).toBe("Sign in to continue to Ledger Sync")
      // The email field has the focus (autofocus), so a person can start typing at once.
      expect(yield* Effect.promise(() => desktop.evaluate(() => document.activeElement?.id))).toBe("email")
      yield* Effect.promise(() => screenshot(desktop, DESKTOP, folder, "sign-in-desktop", "Sign in"))

      const consentResponse = yield* Effect.promise(() => signIn(desktop, email))
      expect(consentResponse?.status()).toBe(200)
      expect(new URL(desktop.url()).pathname).toBe("/api/auth/oauth2/authorize")
      expect(yield* Effect.promise(() => desktop.title())).toBe("Allow Ledger Sync access? · Business Operations")
      const consentText = yield* Effect.promise(() => desktop.$eval("main", (e) => e instanceof HTMLElement ? e.innerText : ""))
      expect(consentText).toContain(`Signed in as ${email}`)
      expect(consentText).toContain("ledger-sync.example.com")
      expect(consentText).toContain("read:clients")
      expect(consentText).toContain("offline_access")
      // The organization choice: one radio button per organization, none chosen.
      const choices = yield* Effect.promise(() =>
        desktop.$$eval("input[name=organizationId]", (inputs) =>
          inputs.map((i) => ({ type: i.getAttribute("type"), value: i.getAttribute("value"), checked: i instanceof HTMLInputElement && i.checked })))
      )
      expect(choices.map((c) => c.value).sort()).toEqual([home.organizationId, second.organizationId].sort())
      expect(choices.every((c) => c.type === "radio" && !c.checked)).toBe(true)
      yield* Effect.promise(() => screenshot(desktop, DESKTOP, folder, "consent-desktop", "Allow"))

      // Allow without choosing an organization: the browser keeps the form (the radio group is required).
      const consentUrl = desktop.url()
      yield* Effect.promise(() => desktop.click("button[value=approve]"))
      yield* Effect.sleep("300 millis")
      expect(desktop.url()).toBe(consentUrl)
      expect(desktopRedirects).toEqual([])
      expect(yield* Effect.promise(() => desktop.$eval("form", (f) => f instanceof HTMLFormElement && f.checkValidity()))).toBe(false)

      // Choose the second organization (by its label, as a person would) and Allow.
      yield* Effect.promise(() => desktop.click(`label:has(input[value="${second.organizationId}"])`))
      const landed = yield* Effect.promise(() => submitBy(desktop, "button[value=approve]"))
      expect(landed?.status()).toBe(200)
      expect(desktopRedirects).toHaveLength(1)
      const back = new URL(desktop.url())
      expect(`${back.origin}${back.pathname}`).toBe(REDIRECT_URI)
      expect(back.searchParams.get("state")).toBe(desktopState)
      // RFC 9207: the issuer, which is the server the browser talks to.
      expect(back.searchParams.get("iss"), "iss").toBe(server.baseUrl)
      expect(back.searchParams.get("error")).toBeNull()
      const code = back.searchParams.get("code") ?? ""
      expect(code.length).toBeGreaterThanOrEqual(32)

      // The code is good: exchanged with the verifier, it gives a token for the organization chosen.
      const token = yield* Effect.promise(() =>
        fetch(`${server.baseUrl}/api/auth/oauth2/token`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({
            grant_type: "authorization_code",
            code,
            redirect_uri: REDIRECT_URI,
            code_verifier: desktopPkce.verifier,
            client_id: app.clientId,
            client_secret: app.clientSecret
          })
        }).then(async (r) => ({ status: r.status, body: await r.json() as { access_token?: string } }))
      )
      expect(token.status).toBe(200)
      const claims = JSON.parse(Buffer.from((token.body.access_token ?? "").split(".")[1] ?? "", "base64url").toString("utf8"))
      expect(claims.organizationId).toBe(second.organizationId)
      expect(claims.sub).toBe(userId)
      expect(desktopProblems).toEqual([])

      // --- Phone: a fresh browser profile, sign in, Cancel. -------------------------------------------
      const context = yield* openContext(browser)
      const phone = yield* Effect.promise(() => context.newPage())
      const phoneProblems: Array<string> = []
      const phoneRedirects: Array<string> = []
      const phoneState = randomBytes(12).toString("base64url")
      yield* Effect.promise(async () => {
        await watch(phone, phoneProblems)
        await interceptRedirects(phone, server.baseUrl, phoneRedirects, phoneProblems)
        await phone.setViewport(PHONE)
      })
      expect((yield* Effect.promise(() => phone.goto(authorizeUrl(phoneState, pkce().challenge))))?.status()).toBe(200)
      // Without a session of its own, the phone gets the sign-in page, not the desktop's consent.
      expect(yield* Effect.promise(() => phone.$eval("h1", (e) => e.textContent))).toBe("Sign in to continue to Ledger Sync")
      yield* Effect.promise(() => screenshot(phone, PHONE, folder, "sign-in-phone", "Sign in"))

      expect((yield* Effect.promise(() => signIn(phone, email)))?.status()).toBe(200)
      expect(yield* Effect.promise(() => phone.title())).toBe("Allow Ledger Sync access? · Business Operations")
      // The consent page is longer than a phone's screen: scroll to the buttons, as a person would.
      const phoneConsent = yield* Effect.promise(async () => {
        await phone.$eval(".actions", (e) => e.scrollIntoView({ block: "end" }))
        return screenshot(phone, PHONE, folder, "consent-phone", "Allow")
      })
      // The two buttons sit side by side, Cancel first.
      expect(phoneConsent.layout.buttons.map((b) => b.label)).toEqual(["Cancel", "Allow"])
      expect(phoneConsent.layout.buttons[0].y).toBe(phoneConsent.layout.buttons[1].y)

      // Cancel needs no organization (formnovalidate) and goes back with access_denied.
      expect((yield* Effect.promise(() => submitBy(phone, "button[value=deny]")))?.status()).toBe(200)
      expect(phoneRedirects).toHaveLength(1)
      const denied = new URL(phone.url())
      expect(`${denied.origin}${denied.pathname}`).toBe(REDIRECT_URI)
      expect(denied.searchParams.get("error")).toBe("access_denied")
      expect(denied.searchParams.get("state")).toBe(phoneState)
      expect(denied.searchParams.get("iss"), "iss").toBe(server.baseUrl)
      expect(denied.searchParams.get("code")).toBeNull()
      expect(phoneProblems).toEqual([])
    }), { timeout: 60_000 })
})
