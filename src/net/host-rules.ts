/**
 * The address and host-name rules shared by the custom-host check and the connect-time pin:
 * which range an address is in, IP literals as the URL parser writes them, and trusted-host
 * entries. Pure functions, no I/O.
 */
import ipaddr from "ipaddr.js";

export type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** IPv6 global unicast; ipaddr.js calls every address outside its special ranges "unicast", even `::a9fe:a9fe`. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR("2000::/3");

/** "loopback", "public", or the name of the non-public range the address is in. */
export function classify(address: Address): string {
  const range = address.range();
  if (range === "loopback") return "loopback";
  if (range !== "unicast") return range;
  if (address.kind() === "ipv6" && !address.match(GLOBAL_UNICAST_V6)) return "reserved";
  return "public";
}

/** Parses an address, unwrapping IPv4-mapped IPv6; null when it is not an IP address. */
export function parseAddress(text: string): Address | null {
  try {
    return ipaddr.process(text);
  } catch {
    return null;
  }
}

/** The hostname as an IP literal when it is one. WHATWG URL parsing has already turned `2130706433`, `0x7f.1` and the like into dotted quads. */
export function ipLiteral(hostname: string): Address | null {
  if (hostname.startsWith("[") && hostname.endsWith("]")) return parseAddress(hostname.slice(1, -1));
  return ipaddr.IPv4.isValidFourPartDecimal(hostname) ? parseAddress(hostname) : null;
}

export function withoutTrailingDot(hostname: string): string {
  return hostname.endsWith(".") ? hostname.slice(0, -1) : hostname;
}

/** Parses a trusted-host entry (`host`, `host:port`, `[v6]:port` or a bare IPv6 literal) into the URL parser's normal form. Throws on a malformed entry. */
export function parseTrustedEntry(entry: string): { host: string; port: string | null } {
  const raw = entry.trim().toLowerCase();
  let hostPart = raw;
  let port: string | null = null;
  const withPort = /^(.*):(\d{1,5})$/.exec(raw);
  if (withPort?.[1] && withPort[2] && (!withPort[1].includes(":") || /^\[.*\]$/.test(withPort[1]))) {
    hostPart = withPort[1];
    port = String(Number(withPort[2]));
  } else if (raw.includes(":") && !raw.startsWith("[")) {
    hostPart = `[${raw}]`;
  }
  const portNumber = port === null ? 1 : Number(port);
  if (hostPart === "" || /[/?#@\\\s]/.test(hostPart) || portNumber < 1 || portNumber > 65535) {
    throw new TypeError(`Invalid trusted custom host entry "${entry}".`);
  }
  let hostname: string;
  try {
    hostname = new URL(`http://${hostPart}/`).hostname;
  } catch {
    throw new TypeError(`Invalid trusted custom host entry "${entry}".`);
  }
  return { host: withoutTrailingDot(hostname), port };
}
