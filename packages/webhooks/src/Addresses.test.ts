import { describe, expect, it } from "@effect/vitest"
import { Result } from "effect"
import * as fc from "fast-check"
import { prop } from "@bizops/testkit/Prop"
import {
  checkAddress,
  checkTargetUrl,
  FORBIDDEN_ADDRESS_MESSAGE,
  isForbiddenAddress,
  isLoopbackAddress,
  isLoopbackHost,
  literalAddress
} from "./Addresses.js"

// An oracle written independently of ipaddr.js: the IPv4 blocks that are not public unicast.
const FORBIDDEN_V4: ReadonlyArray<readonly [string, number, string]> = [
  ["0.0.0.0", 8, "unspecified / this network"],
  ["10.0.0.0", 8, "private"],
  ["100.64.0.0", 10, "carrier-grade NAT"],
  ["127.0.0.0", 8, "loopback"],
  ["169.254.0.0", 16, "link-local (metadata)"],
  ["172.16.0.0", 12, "private"],
  ["192.0.0.0", 24, "IETF protocol assignments"],
  ["192.0.2.0", 24, "documentation"],
  ["192.88.99.0", 24, "6to4 relay anycast"],
  ["192.168.0.0", 16, "private"],
  ["198.18.0.0", 15, "benchmarking"],
  ["198.51.100.0", 24, "documentation"],
  ["203.0.113.0", 24, "documentation"],
  ["224.0.0.0", 4, "multicast"],
  ["240.0.0.0", 4, "reserved and broadcast"]
]
// Also refused by ipaddr.js's table, not needed by the rules but harmless: AS112 and AMT anycast.
const ALSO_REFUSED_V4: ReadonlyArray<readonly [string, number]> = [["192.175.48.0", 24], ["192.31.196.0", 24], ["192.52.193.0", 24]]

const toInt = (ip: string): number => ip.split(".").reduce((acc, octet) => acc * 256 + Number(octet), 0)
const toDotted = (n: number): string => [24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256).join(".")
const inBlock = (n: number, [base, bits]: readonly [string, number, ...Array<string>]): boolean =>
  Math.floor(n / 2 ** (32 - bits)) === Math.floor(toInt(base) / 2 ** (32 - bits))
const oracleForbidden = (n: number): boolean => [...FORBIDDEN_V4, ...ALSO_REFUSED_V4].some((block) => inBlock(n, block))

const ipv4Int = fc.integer({ min: 0, max: 2 ** 32 - 1 })
const inForbiddenBlock = fc.constantFrom(...FORBIDDEN_V4).chain(([base, bits]) =>
  fc.integer({ min: 0, max: 2 ** (32 - bits) - 1 }).map((offset) => toInt(base) + offset)
)
const hex = (n: number): string => n.toString(16)
/** The IPv6 spellings of an IPv4 address that reach the IPv4 host. */
const ipv6Forms = (n: number): ReadonlyArray<string> => {
  const high = Math.floor(n / 65536)
  const low = n % 65536
  const dotted = toDotted(n)
  return [
    `::ffff:${dotted}`,
    `::ffff:${hex(high)}:${hex(low)}`,
    `0:0:0:0:0:ffff:${hex(high)}:${hex(low)}`,
    `::FFFF:${dotted}`,
    `[::ffff:${dotted}]`,
    `::ffff:0:${dotted}`,
    `64:ff9b::${dotted}`,
    `2002:${hex(high)}:${hex(low)}::1`
  ]
}

describe("isForbiddenAddress: IPv4", () => {
  it.each([
    "127.0.0.1",
    "127.255.255.254",
    "10.0.0.1",
    "172.16.0.1",
    "172.31.255.255",
    "192.168.1.1",
    "169.254.169.254",
    "169.254.0.1",
    "0.0.0.0",
    "255.255.255.255",
    "224.0.0.1",
    "239.255.255.250",
    "100.64.0.1",
    "100.127.255.255",
    "192.0.2.10",
    "240.0.0.1"
  ])("refuses %s", (ip) => {
    expect(isForbiddenAddress(ip)).toBe(true)
  })

  it.each(["8.8.8.8", "1.1.1.1", "93.184.216.34", "172.15.255.255", "172.32.0.0", "100.63.255.255", "100.128.0.0", "169.253.255.255", "11.0.0.1", "223.255.255.254"])(
    "accepts %s",
    (ip) => {
      expect(isForbiddenAddress(ip)).toBe(false)
    }
  )

  prop("refuses every address of every forbidden block", [inForbiddenBlock], ([n]) => {
    expect(isForbiddenAddress(toDotted(n))).toBe(true)
  })

  prop("agrees with the oracle on any IPv4 address", [ipv4Int], ([n]) => {
    expect(isForbiddenAddress(toDotted(n))).toBe(oracleForbidden(n))
  })
})

describe("isForbiddenAddress: IPv6", () => {
  it.each([
    ["::1", "loopback"],
    ["0:0:0:0:0:0:0:1", "loopback, long form"],
    ["::", "unspecified"],
    ["fe80::1", "link-local"],
    ["fe80::1%eth0", "link-local with a zone"],
    ["febf:ffff::1", "link-local, end of fe80::/10"],
    ["fc00::1", "unique local"],
    ["fd12:3456:789a::1", "unique local"],
    ["ff02::1", "multicast"],
    ["fec0::1", "site-local (deprecated)"],
    ["2001:db8::1", "documentation"],
    ["::127.0.0.1", "IPv4-compatible (deprecated)"],
    ["::ffff:127.0.0.1", "IPv4-mapped loopback"],
    ["::ffff:7f00:1", "IPv4-mapped loopback, hex"],
    ["::ffff:169.254.169.254", "IPv4-mapped metadata"],
    ["::ffff:a9fe:a9fe", "IPv4-mapped metadata, hex"],
    ["::ffff:10.0.0.1", "IPv4-mapped private"],
    ["::ffff:0.0.0.0", "IPv4-mapped unspecified"],
    ["64:ff9b::127.0.0.1", "NAT64 of loopback"],
    ["2002:7f00:1::", "6to4 of loopback"],
    ["2002:c0a8:101::1", "6to4 of 192.168.1.1"],
    ["2001::1", "Teredo"],
    ["4000::1", "outside 2000::/3"]
  ])("refuses %s (%s)", (ip) => {
    expect(isForbiddenAddress(ip)).toBe(true)
  })

  it.each(["2606:4700:4700::1111", "2001:4860:4860::8888", "2a00:1450:4001:81b::200e", "::ffff:8.8.8.8", "::ffff:808:808", "64:ff9b::8.8.8.8", "2002:808:808::1"])(
    "accepts %s",
    (ip) => {
      expect(isForbiddenAddress(ip)).toBe(false)
    }
  )

  prop("an IPv6 form of an IPv4 address is judged as that address", [fc.oneof(inForbiddenBlock, ipv4Int)], ([n]) => {
    for (const form of ipv6Forms(n)) expect([form, isForbiddenAddress(form)]).toEqual([form, oracleForbidden(n)])
  })

  prop("refuses every address of fc00::/7, fe80::/10, ff00::/8", [
    fc.oneof(fc.integer({ min: 0xfc00, max: 0xfdff }), fc.integer({ min: 0xfe80, max: 0xfebf }), fc.integer({ min: 0xff00, max: 0xffff })),
    fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 7, maxLength: 7 })
  ], ([first, rest]) => {
    expect(isForbiddenAddress([first, ...rest].map(hex).join(":"))).toBe(true)
  })

  prop("accepts public unicast IPv6 (2000::/3 outside the special blocks)", [
    fc.integer({ min: 0x2400, max: 0x2fff }),
    fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 7, maxLength: 7 })
  ], ([first, rest]) => {
    expect(isForbiddenAddress([first, ...rest].map(hex).join(":"))).toBe(false)
  })
})

describe("isForbiddenAddress: anything else fails closed", () => {
  it.each(["", "localhost", "example.com", "1.2.3.4.5", "256.0.0.1", ":::1", "gibberish", "http://8.8.8.8/"])("refuses %j", (text) => {
    expect(isForbiddenAddress(text)).toBe(true)
  })

  prop("refuses every string that is not an address", [fc.string({ maxLength: 20 }).filter((s) => !/^[0-9a-fA-FxX.:%[\]]*$/.test(s))], ([text]) => {
    expect(isForbiddenAddress(text)).toBe(true)
  })
})

describe("loopback", () => {
  it.each([["127.0.0.1", true], ["127.8.9.10", true], ["::1", true], ["[::1]", true], ["::ffff:127.0.0.1", true], ["10.0.0.1", false], ["::", false], ["8.8.8.8", false]])(
    "isLoopbackAddress(%s) is %s",
    (ip, loopback) => {
      expect(isLoopbackAddress(ip)).toBe(loopback)
    }
  )

  it.each([["localhost", true], ["LOCALHOST", true], ["localhost.", true], ["api.localhost", true], ["127.0.0.1", true], ["[::1]", true], ["localhost.example.com", false], ["mylocalhost", false], ["example.com", false]])(
    "isLoopbackHost(%s) is %s",
    (host, loopback) => {
      expect(isLoopbackHost(host)).toBe(loopback)
    }
  )

  it.each([["127.0.0.1", "127.0.0.1"], ["[::1]", "::1"], ["[2606:4700:4700::1111]", "2606:4700:4700::1111"], ["example.com", undefined], ["localhost", undefined]])(
    "literalAddress(%s) is %s",
    (host, address) => {
      expect(literalAddress(host)).toBe(address)
    }
  )
})

const secure = { allowInsecure: false }
const insecure = { allowInsecure: true }
const leftOf = (result: Result.Result<URL, string>): string | undefined => Result.isFailure(result) ? result.failure : undefined

describe("checkTargetUrl", () => {
  it.each([
    "https://example.com/hooks",
    "https://hooks.example.org:8443/a/b?x=1",
    "https://8.8.8.8/hook",
    "https://[2606:4700:4700::1111]/hook",
    "HTTPS://EXAMPLE.COM/"
  ])("accepts %s", (url) => {
    const result = checkTargetUrl(url, secure)
    expect(leftOf(result)).toBeUndefined()
    expect(Result.getOrThrow(result)).toBeInstanceOf(URL)
    expect(Result.isSuccess(checkTargetUrl(url, insecure))).toBe(true)
  })

  it.each([
    ["", "must be an absolute URL"],
    ["example.com/hook", "must be an absolute URL"],
    ["/hooks", "must be an absolute URL"],
    ["http://example.com/hook", "must use https"],
    ["http://127.0.0.1:8080/hook", "must use https"],
    ["http://localhost/hook", "must use https"],
    ["ftp://example.com/hook", "must use https"],
    ["javascript:alert(1)", "must use https"],
    ["file:///etc/passwd", "must use https"],
    ["https://user:pass@example.com/hook", "must not contain a user name or password"],
    ["https://user@example.com/hook", "must not contain a user name or password"],
    ["https://:pass@example.com/hook", "must not contain a user name or password"],
    ["https://127.0.0.1/hook", FORBIDDEN_ADDRESS_MESSAGE],
    ["https://169.254.169.254/latest/meta-data", FORBIDDEN_ADDRESS_MESSAGE],
    ["https://10.1.2.3/hook", FORBIDDEN_ADDRESS_MESSAGE],
    ["https://192.168.0.10/hook", FORBIDDEN_ADDRESS_MESSAGE],
    ["https://100.64.0.1/hook", FORBIDDEN_ADDRESS_MESSAGE],
    ["https://0.0.0.0/hook", FORBIDDEN_ADDRESS_MESSAGE],
    ["https://[::1]/hook", FORBIDDEN_ADDRESS_MESSAGE],
    ["https://[::ffff:127.0.0.1]/hook", FORBIDDEN_ADDRESS_MESSAGE],
    ["https://[::ffff:a9fe:a9fe]/hook", FORBIDDEN_ADDRESS_MESSAGE],
    ["https://[fe80::1]/hook", FORBIDDEN_ADDRESS_MESSAGE],
    ["https://[fd00::1]/hook", FORBIDDEN_ADDRESS_MESSAGE],
    ["https://2130706433/hook", FORBIDDEN_ADDRESS_MESSAGE],
    ["https://0x7f.1/hook", FORBIDDEN_ADDRESS_MESSAGE],
    ["https://localhost/hook", FORBIDDEN_ADDRESS_MESSAGE],
    ["https://api.localhost./hook", FORBIDDEN_ADDRESS_MESSAGE]
  ])("refuses %j: %s", (url, message) => {
    expect(leftOf(checkTargetUrl(url, secure))).toBe(message)
  })

  describe("with WEBHOOKS_ALLOW_INSECURE", () => {
    it.each(["http://127.0.0.1:4567/hook", "http://127.0.0.1/", "http://localhost:3000/x", "http://[::1]:8080/x", "https://127.0.0.1:4567/hook", "https://10.0.0.5/hook"])(
      "accepts %s",
      (url) => {
        expect(leftOf(checkTargetUrl(url, insecure))).toBeUndefined()
      }
    )

    it.each([
      ["http://example.com/hook", "must use https (http is accepted only for a loopback host such as 127.0.0.1 or localhost)"],
      ["http://10.0.0.5/hook", "must use https (http is accepted only for a loopback host such as 127.0.0.1 or localhost)"],
      ["http://user:pw@127.0.0.1/hook", "must not contain a user name or password"],
      ["ftp://127.0.0.1/hook", "must use https"]
    ])("refuses %s", (url, message) => {
      expect(leftOf(checkTargetUrl(url, insecure))).toBe(message)
    })
  })

  prop("an https URL to any forbidden IPv4 literal is refused", [inForbiddenBlock], ([n]) => {
    expect(leftOf(checkTargetUrl(`https://${toDotted(n)}/hook`, secure))).toBe(FORBIDDEN_ADDRESS_MESSAGE)
  })

  prop("http is refused for every non-loopback host, with or without the setting", [ipv4Int, fc.boolean()], ([n, allowInsecure]) => {
    fc.pre(Math.floor(n / 2 ** 24) !== 127)
    expect(Result.isFailure(checkTargetUrl(`http://${toDotted(n)}/hook`, { allowInsecure }))).toBe(true)
  })
})

describe("checkAddress (the worker, after DNS)", () => {
  it("refuses a forbidden address with a message for the attempt, unless insecure", () => {
    expect(checkAddress("169.254.169.254", secure)).toEqual(Result.fail("refused to connect to 169.254.169.254: not a public address"))
    expect(checkAddress("[::1]", secure)).toEqual(Result.fail("refused to connect to ::1: not a public address"))
    expect(checkAddress("8.8.8.8", secure)).toEqual(Result.succeed("8.8.8.8"))
    expect(checkAddress("127.0.0.1", insecure)).toEqual(Result.succeed("127.0.0.1"))
  })
})
