/**
 * Server-side request forgery (SSRF) rules for webhook targets.
 *
 * - `checkTargetUrl` judges a subscription's URL when it is created or changed (a 400 with the message).
 * - `isForbiddenAddress` / `checkAddress` judge every address the worker is about to connect to, after DNS
 *   resolution (a name can resolve to anything, and can change between the check and the request: check the
 *   address the socket actually uses, in the `lookup` of the connection, and follow no redirects).
 *
 * Only public unicast addresses are allowed. IPv6 forms that carry an IPv4 address (IPv4-mapped
 * `::ffff:a.b.c.d`, IPv4-translated, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`) are judged by the IPv4 address
 * they carry. Anything that does not parse as an address is forbidden (fail closed).
 */
import { Result } from "effect"
import ipaddr from "ipaddr.js"

type Address = ipaddr.IPv4 | ipaddr.IPv6

const withoutBrackets = (ip: string): string => (ip.startsWith("[") && ip.endsWith("]") ? ip.slice(1, -1) : ip)

/** The address written in `ip` (IPv4, IPv6, optionally in brackets), if it is one. */
const parseAddress = (ip: string): Address | undefined => {
  const text = withoutBrackets(ip.trim())
  return ipaddr.isValid(text) ? ipaddr.parse(text) : undefined
}

const ipv4FromParts = (high: number, low: number): ipaddr.IPv4 => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff])

const NAT64 = ipaddr.IPv6.parseCIDR("64:ff9b::/96")
const IPV4_TRANSLATED = ipaddr.IPv6.parseCIDR("::ffff:0:0:0/96")
const SIX_TO_FOUR = ipaddr.IPv6.parseCIDR("2002::/16")
const GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR("2000::/3")

/** The IPv4 address an IPv6 address carries, for the forms that reach an IPv4 host. */
const embeddedIPv4 = (address: ipaddr.IPv6): ipaddr.IPv4 | undefined => {
  const p = address.parts
  if (address.isIPv4MappedAddress() || address.match(IPV4_TRANSLATED) || address.match(NAT64)) return ipv4FromParts(p[6], p[7])
  if (address.match(SIX_TO_FOUR)) return ipv4FromParts(p[1], p[2])
  return undefined
}

/**
 * The IPv4 ranges ipaddr.js names, all refused but `unicast`: unspecified 0/8, loopback 127/8, private 10/8,
 * 172.16/12, 192.168/16, link-local 169.254/16 (the cloud metadata address 169.254.169.254 included),
 * carrier-grade NAT 100.64/10, multicast 224/4, broadcast, and the reserved, documentation, benchmarking
 * and 240/4 blocks.
 */
const isForbiddenIPv4 = (address: ipaddr.IPv4): boolean => address.range() !== "unicast"

const isForbiddenIPv6 = (address: ipaddr.IPv6): boolean => {
  const v4 = embeddedIPv4(address)
  if (v4 !== undefined) return isForbiddenIPv4(v4)
  // Loopback ::1, unspecified ::, link-local fe80::/10, unique local fc00::/7, multicast ff00::/8, site-local,
  // documentation, Teredo and the rest are not `unicast`; outside 2000::/3 nothing is assigned for the internet
  // (this also refuses the deprecated IPv4-compatible ::a.b.c.d).
  return address.range() !== "unicast" || !address.match(GLOBAL_UNICAST)
}

/**
 * True when the worker must not connect to `ip`: loopback, private, link-local (the metadata address too),
 * unique local, unspecified, multicast, broadcast, carrier-grade NAT, reserved, any IPv6 form of those, and
 * anything that is not an IP address at all. `[::1]` (brackets, as in a URL) is accepted as input.
 */
export const isForbiddenAddress = (ip: string): boolean => {
  const address = parseAddress(ip)
  if (address === undefined) return true
  return address instanceof ipaddr.IPv4 ? isForbiddenIPv4(address) : isForbiddenIPv6(address)
}

/** True for a loopback address: 127.0.0.0/8, ::1, or an IPv6 form of 127.0.0.0/8. */
export const isLoopbackAddress = (ip: string): boolean => {
  const address = parseAddress(ip)
  if (address === undefined) return false
  if (address instanceof ipaddr.IPv4) return address.range() === "loopback"
  const v4 = embeddedIPv4(address)
  return v4 !== undefined ? v4.range() === "loopback" : address.range() === "loopback"
}

const withoutTrailingDot = (host: string): string => (host.endsWith(".") ? host.slice(0, -1) : host)

/** `localhost` and its subdomains (RFC 6761: they resolve to loopback), or a loopback address. */
export const isLoopbackHost = (hostname: string): boolean => {
  const host = withoutTrailingDot(hostname.toLowerCase())
  return host === "localhost" || host.endsWith(".localhost") || isLoopbackAddress(host)
}

/** The IP address a URL's hostname is written as (brackets removed), or undefined for a name that needs DNS. */
export const literalAddress = (hostname: string): string | undefined => {
  const text = withoutBrackets(hostname)
  return ipaddr.isValid(text) && (hostname.startsWith("[") || ipaddr.IPv4.isValidFourPartDecimal(text)) ? text : undefined
}

export interface TargetOptions {
  /** `WEBHOOKS_ALLOW_INSECURE=1`: http to a loopback host is accepted, and no address is refused. */
  readonly allowInsecure: boolean
}

export const FORBIDDEN_ADDRESS_MESSAGE = "must not point at a private, loopback, link-local or otherwise non-public address"

/**
 * Judges a target URL: an absolute `https` URL with a host and without credentials; `http` only when
 * `allowInsecure` is on and the host is loopback (`http://127.0.0.1:PORT/...`, `http://localhost/...`).
 * Unless `allowInsecure` is on, a host written as a forbidden address, or `localhost`, is refused here already
 * (a name is judged by the worker once resolved). Gives the parsed URL, or the message of a 400.
 */
export const checkTargetUrl = (url: string, options: TargetOptions): Result.Result<URL, string> => {
  if (!URL.canParse(url)) return Result.fail("must be an absolute URL")
  const parsed = new URL(url)
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") return Result.fail("must use https")
  if (parsed.username !== "" || parsed.password !== "") return Result.fail("must not contain a user name or password")
  if (parsed.hostname === "") return Result.fail("must name a host")
  const loopback = isLoopbackHost(parsed.hostname)
  if (parsed.protocol === "http:" && !(options.allowInsecure && loopback)) {
    return Result.fail(
      options.allowInsecure ? "must use https (http is accepted only for a loopback host such as 127.0.0.1 or localhost)" : "must use https"
    )
  }
  if (!options.allowInsecure) {
    const literal = literalAddress(parsed.hostname)
    if (loopback || (literal !== undefined && isForbiddenAddress(literal))) return Result.fail(FORBIDDEN_ADDRESS_MESSAGE)
  }
  return Result.succeed(parsed)
}

/**
 * Judges an address the worker is about to connect to (after DNS): the address back, or the error to record
 * for the attempt. With `allowInsecure` every address is accepted.
 */
export const checkAddress = (ip: string, options: TargetOptions): Result.Result<string, string> =>
  !options.allowInsecure && isForbiddenAddress(ip)
    ? Result.fail(`refused to connect to ${withoutBrackets(ip)}: not a public address`)
    : Result.succeed(withoutBrackets(ip))
