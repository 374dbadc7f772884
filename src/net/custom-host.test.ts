import { afterEach, describe, expect, it, vi } from "vitest";
import { createCustomHostGuard } from "./custom-host.ts";

/** A resolver from a fixed table; unknown names fail like getaddrinfo does. */
function fakeLookup(table: Record<string, string[]>) {
  const calls: string[] = [];
  const lookup = async (hostname: string): Promise<string[]> => {
    calls.push(hostname);
    const answers = table[hostname];
    if (!answers) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
    return answers;
  };
  return { lookup, calls };
}

const PUBLIC = ["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"];

async function verdict(guard: ReturnType<typeof createCustomHostGuard>, url: string) {
  const result = await guard.check(url);
  return result.ok ? { ok: true as const, href: result.value.href } : { ok: false as const, code: result.error.code, status: result.error.status, message: result.error.message };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("createCustomHostGuard: URL shape", () => {
  const guard = createCustomHostGuard({ trustedHosts: [], allowPublicHosts: true, lookup: fakeLookup({ "api.example.com": PUBLIC }).lookup });

  it("returns the parsed URL for a public host", async () => {
    expect(await verdict(guard, "https://api.example.com/v1")).toEqual({ ok: true, href: "https://api.example.com/v1" });
  });

  it("refuses an unparseable value as invalid_request", async () => {
    for (const raw of ["", "api.example.com/v1", "//api.example.com", "http://", "http://[::1"]) {
      expect(await verdict(guard, raw), raw).toMatchObject({ ok: false, code: "invalid_request", status: 400 });
    }
  });

  it("names the field the URL came from: the header by default, or the one given", async () => {
    const header = await guard.check("not a url");
    expect(header.ok ? null : [header.error.param, header.error.message]).toEqual(["x-gateway-custom-host", "x-gateway-custom-host must be an absolute http:// or https:// URL."]);
    for (const raw of ["not a url", "ftp://api.example.com", "http://u:p@api.example.com", "http://10.0.0.1/v1", "http://unknown.example/v1"]) {
      const field = await guard.check(raw, "custom_host");
      expect(field.ok ? null : field.error.param, raw).toBe("custom_host");
      expect(field.ok ? "" : field.error.message, raw).not.toContain("x-gateway-custom-host");
    }
  });

  it("refuses other schemes", async () => {
    for (const raw of ["ftp://api.example.com/", "file:///etc/passwd", "gopher://127.0.0.1:6379/_", "api.example.com:8080", "data:text/plain,x"]) {
      expect(await verdict(guard, raw), raw).toMatchObject({ ok: false, code: "forbidden_custom_host", status: 400 });
    }
  });

  it("refuses credentials without echoing them", async () => {
    for (const raw of ["https://alice:s3cret@api.example.com/v1", "https://s3cret@api.example.com/", "http://:s3cret@127.0.0.1/"]) {
      const result = await verdict(guard, raw);
      expect(result, raw).toMatchObject({ ok: false, code: "forbidden_custom_host", status: 400 });
      expect(JSON.stringify(result)).not.toContain("s3cret");
    }
  });
});

describe("createCustomHostGuard: IP literals", () => {
  const { lookup, calls } = fakeLookup({});
  const guard = createCustomHostGuard({ trustedHosts: [], allowPublicHosts: true, lookup });

  it("allows loopback without a lookup", async () => {
    for (const raw of ["http://127.0.0.1:11434/v1", "http://127.8.9.10/", "http://[::1]:8080/", "http://localhost:1234/v1", "http://LOCALHOST./", "http://[::ffff:127.0.0.1]/"]) {
      expect(await verdict(guard, raw), raw).toMatchObject({ ok: true });
    }
    expect(calls).toEqual([]);
  });

  it("allows public literals", async () => {
    for (const raw of ["http://8.8.8.8/", "https://[2606:4700:4700::1111]/v1", "http://[::ffff:8.8.8.8]/"]) {
      expect(await verdict(guard, raw), raw).toMatchObject({ ok: true });
    }
  });

  it("refuses non-public literals", async () => {
    const refused = [
      "http://10.1.2.3/",
      "http://172.16.0.1/",
      "http://172.31.255.255/",
      "http://192.168.1.1/",
      "http://169.254.169.254/latest/meta-data/",
      "http://100.64.0.1/",
      "http://0.0.0.0:8080/",
      "http://0.1.2.3/",
      "http://224.0.0.1/",
      "http://255.255.255.255/",
      "http://240.0.0.1/",
      "http://192.0.2.1/",
      "http://[fc00::1]/",
      "http://[fd12:3456:789a::1]/",
      "http://[fe80::1]/",
      "http://[::]/",
      "http://[ff02::1]/",
      "http://[::ffff:169.254.169.254]/",
      "http://[::ffff:10.0.0.1]/",
      "http://[::ffff:a9fe:a9fe]/",
      "http://[::a9fe:a9fe]/",
      "http://[64:ff9b::a9fe:a9fe]/",
      "http://[2002:a9fe:a9fe::1]/",
      "http://[2001:db8::1]/",
    ];
    for (const raw of refused) {
      expect(await verdict(guard, raw), raw).toMatchObject({ ok: false, code: "forbidden_custom_host", status: 400 });
    }
    expect(calls).toEqual([]);
  });

  it("sees through decimal, hex and octal IPv4 forms (WHATWG URL normalises them)", async () => {
    expect(new URL("http://2130706433/").hostname).toBe("127.0.0.1");
    expect(new URL("http://0x7f.1/").hostname).toBe("127.0.0.1");
    expect(await verdict(guard, "http://2130706433/")).toMatchObject({ ok: true });
    expect(await verdict(guard, "http://0x7f.1/")).toMatchObject({ ok: true });
    for (const raw of ["http://0xa9fea9fe/", "http://2852039166/", "http://0251.0376.0251.0376/", "http://169.254.43518/", "http://0x0a.1/", "http://10.0.0.1./", "http://012.1/"]) {
      expect(await verdict(guard, raw), raw).toMatchObject({ ok: false, code: "forbidden_custom_host" });
    }
    expect(calls).toEqual([]);
  });
});

describe("createCustomHostGuard: default allowlist", () => {
  it("refuses unlisted public hosts and literals without resolving them, and allows loopback", async () => {
    const { lookup, calls } = fakeLookup({ "api.example.com": PUBLIC });
    const guard = createCustomHostGuard({ trustedHosts: ["api.example.com"], lookup });
    const listed = await guard.check("https://api.example.com/v1");
    expect(listed.ok).toBe(true);
    for (const url of ["https://other.example.com/v1", "http://8.8.8.8/v1", "http://10.1.2.3/v1"]) {
      const result = await guard.check(url);
      expect(result.ok, url).toBe(false);
      if (!result.ok) {
        expect(result.error.code).toBe("forbidden_custom_host");
        expect(result.error.status).toBe(400);
      }
    }
    expect((await guard.check("http://127.0.0.1:11434/v1")).ok).toBe(true);
    expect((await guard.check("http://localhost:8000/v1")).ok).toBe(true);
    expect(calls).toEqual([]);
  });
});

describe("createCustomHostGuard: trusted hosts", () => {
  it("allows a trusted host whatever it resolves to, without a lookup", async () => {
    const { lookup, calls } = fakeLookup({});
    const guard = createCustomHostGuard({ trustedHosts: ["llm.internal", "10.0.0.5", "fd00::7"], lookup });
    for (const raw of ["http://llm.internal/v1", "https://LLM.Internal.:8443/v1", "http://10.0.0.5:8000/", "http://[fd00::7]/"]) {
      expect(await verdict(guard, raw), raw).toMatchObject({ ok: true });
    }
    expect(calls).toEqual([]);
  });

  it("matches host:port entries on the effective port", async () => {
    const { lookup } = fakeLookup({ "gpu.lan": ["192.168.0.9"] });
    const guard = createCustomHostGuard({ trustedHosts: ["gpu.lan:8000", "secure.lan:443", "[fd00::9]:80"], lookup });
    expect(await verdict(guard, "http://gpu.lan:8000/v1")).toMatchObject({ ok: true });
    expect(await verdict(guard, "https://secure.lan/v1")).toMatchObject({ ok: true });
    expect(await verdict(guard, "http://[fd00::9]/")).toMatchObject({ ok: true });
    expect(await verdict(guard, "http://gpu.lan:9000/v1")).toMatchObject({ ok: false, code: "forbidden_custom_host" });
    expect(await verdict(guard, "http://secure.lan/v1")).toMatchObject({ ok: false, code: "forbidden_custom_host" });
    expect(await verdict(guard, "http://[fd00::9]:81/")).toMatchObject({ ok: false, code: "forbidden_custom_host" });
  });

  it("does not trust a host that merely ends with a trusted name", async () => {
    const guard = createCustomHostGuard({ trustedHosts: ["internal"], lookup: fakeLookup({ "evil.internal": ["10.9.9.9"] }).lookup });
    expect(await verdict(guard, "http://evil.internal/")).toMatchObject({ ok: false, code: "forbidden_custom_host" });
  });

  it("throws at creation on a malformed entry", () => {
    for (const entry of ["http://x.com", "x.com/v1", "user@x.com", "x.com:0", "x.com:70000", "[::1"]) {
      expect(() => createCustomHostGuard({ trustedHosts: [entry] }), entry).toThrow(TypeError);
    }
    expect(() => createCustomHostGuard({ trustedHosts: ["", "  "] })).not.toThrow();
  });
});

describe("createCustomHostGuard: DNS", () => {
  it("refuses a hostname when any answer is non-public, without naming the address", async () => {
    const { lookup } = fakeLookup({
      "metadata.example": ["169.254.169.254"],
      "mixed.example": ["93.184.215.14", "10.0.0.8"],
      "mapped.example": ["::ffff:192.168.1.20"],
      "ula.example": ["fd00::1"],
      "garbage.example": ["not-an-ip"],
    });
    const guard = createCustomHostGuard({ trustedHosts: [], allowPublicHosts: true, lookup });
    for (const host of ["metadata.example", "mixed.example", "mapped.example", "ula.example", "garbage.example"]) {
      const result = await verdict(guard, `https://${host}/v1`);
      expect(result, host).toMatchObject({ ok: false, code: "forbidden_custom_host", status: 400 });
      expect(result.ok ? "" : result.message).toContain(host);
      expect(result.ok ? "" : result.message).not.toMatch(/169\.254|10\.0\.0\.8|192\.168|fd00/);
    }
  });

  it("allows a hostname whose answers are public or loopback", async () => {
    const guard = createCustomHostGuard({ trustedHosts: [], allowPublicHosts: true, lookup: fakeLookup({ "api.example.com": PUBLIC, "dev.example": ["127.0.0.1", "::1"] }).lookup });
    expect(await verdict(guard, "https://api.example.com/v1")).toMatchObject({ ok: true });
    expect(await verdict(guard, "http://dev.example:8080/v1")).toMatchObject({ ok: true });
  });

  it("answers upstream_unreachable (502) naming the host when resolution fails or is empty", async () => {
    const guard = createCustomHostGuard({ trustedHosts: [], allowPublicHosts: true, lookup: fakeLookup({ "empty.example": [] }).lookup });
    expect(await verdict(guard, "https://nowhere.example/v1")).toEqual({
      ok: false,
      code: "upstream_unreachable",
      status: 502,
      message: 'Could not resolve custom host "nowhere.example" (ENOTFOUND).',
    });
    expect(await verdict(guard, "https://empty.example/v1")).toMatchObject({ ok: false, code: "upstream_unreachable", status: 502 });
  });

  it("caches verdicts for the TTL, but not failures", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(0);
    const table: Record<string, string[]> = { "a.example": PUBLIC, "b.example": ["10.0.0.1"] };
    const { lookup, calls } = fakeLookup(table);
    const guard = createCustomHostGuard({ trustedHosts: [], allowPublicHosts: true, lookup, cacheTtlMs: 1000 });
    expect(await verdict(guard, "https://a.example/")).toMatchObject({ ok: true });
    expect(await verdict(guard, "https://b.example/")).toMatchObject({ ok: false, code: "forbidden_custom_host" });
    expect(await verdict(guard, "https://c.example/")).toMatchObject({ ok: false, code: "upstream_unreachable" });
    table["a.example"] = ["192.168.0.1"];
    table["c.example"] = PUBLIC;
    vi.setSystemTime(999);
    expect(await verdict(guard, "https://a.example/other")).toMatchObject({ ok: true });
    expect(await verdict(guard, "https://b.example/")).toMatchObject({ ok: false });
    expect(await verdict(guard, "https://c.example/")).toMatchObject({ ok: true });
    expect(calls).toEqual(["a.example", "b.example", "c.example", "c.example"]);
    vi.setSystemTime(1000);
    expect(await verdict(guard, "https://a.example/")).toMatchObject({ ok: false, code: "forbidden_custom_host" });
    expect(calls).toEqual(["a.example", "b.example", "c.example", "c.example", "a.example"]);
  });

  it("shares one lookup between concurrent checks of the same host", async () => {
    let release: (answers: string[]) => void = () => undefined;
    let count = 0;
    const lookup = (): Promise<string[]> => {
      count += 1;
      return new Promise((resolve) => {
        release = resolve;
      });
    };
    const guard = createCustomHostGuard({ trustedHosts: [], allowPublicHosts: true, lookup });
    const first = guard.check("https://slow.example/");
    const second = guard.check("https://slow.example/v1");
    await Promise.resolve();
    release(PUBLIC);
    expect((await first).ok && (await second).ok).toBe(true);
    expect(count).toBe(1);
  });

  it("keeps at most 1000 hosts, evicting the oldest", async () => {
    const calls: string[] = [];
    const lookup = async (hostname: string): Promise<string[]> => {
      calls.push(hostname);
      return PUBLIC;
    };
    const guard = createCustomHostGuard({ trustedHosts: [], allowPublicHosts: true, lookup });
    for (let i = 0; i <= 1000; i += 1) await guard.check(`https://h${i}.example/`);
    expect(calls).toHaveLength(1001);
    await guard.check("https://h1000.example/");
    await guard.check("https://h1.example/");
    expect(calls).toHaveLength(1001);
    await guard.check("https://h0.example/");
    expect(calls).toHaveLength(1002);
    expect(calls.at(-1)).toBe("h0.example");
  });
});

describe("createCustomHostGuard: answers decided by the rules alone are remembered", () => {
  it("gives the same answer for the same text, without parsing it again; refusals and DNS verdicts are not kept", async () => {
    const { lookup, calls } = fakeLookup({ "api.example.com": PUBLIC });
    const guard = createCustomHostGuard({ trustedHosts: ["models.internal"], allowPublicHosts: true, lookup });
    for (const raw of ["http://127.0.0.1:8080/v1", "https://models.internal/v1", "https://93.184.215.14/v1"]) {
      const first = await guard.check(raw);
      const second = await guard.check(raw);
      expect(first.ok, raw).toBe(true);
      expect(second).toBe(first);
    }
    expect((await guard.check("http://10.0.0.1/v1")).ok).toBe(false);
    expect((await guard.check("http://10.0.0.1/v1")).ok).toBe(false);
    await guard.check("https://api.example.com/v1");
    await guard.check("https://api.example.com/v1");
    // The hostname went to the resolver's cache, not to this one: one lookup, then its TTL.
    expect(calls).toEqual(["api.example.com"]);
  });
});
