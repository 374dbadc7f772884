import { describe, expect, it } from "vitest";
import { createCustomHostGuard, type CustomHostGuardOptions } from "./custom-host.ts";

const PUBLIC_V4 = "93.184.215.14";
const PUBLIC_V6 = "2606:2800:21f:cb07:6820:80da:af6b:8b2c";

/** A resolver answering each name from its list of answers in turn (the last one repeats). */
function staged(table: Record<string, string[][]>) {
  const calls: string[] = [];
  const lookup = async (hostname: string): Promise<string[]> => {
    const count = calls.filter((name) => name === hostname).length;
    calls.push(hostname);
    const answers = table[hostname];
    if (!answers) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
    return answers[Math.min(count, answers.length - 1)]!;
  };
  return { lookup, calls };
}

function guardWith(options: Partial<CustomHostGuardOptions> & Pick<CustomHostGuardOptions, "lookup">) {
  return createCustomHostGuard({ trustedHosts: [], allowPublicHosts: true, ...options });
}

async function connect(guard: ReturnType<typeof createCustomHostGuard>, hostname: string) {
  const result = await guard.addressesForConnect(hostname);
  return result.ok ? { ok: true as const, addresses: result.value } : { ok: false as const, code: result.error.code, status: result.error.status };
}

describe("addressesForConnect: a checked name is dialled only at the addresses that were checked", () => {
  it("gives the check's addresses, IPv4 first, without asking the resolver again while the verdict lives", async () => {
    const { lookup, calls } = staged({ "api.example.com": [[PUBLIC_V6, PUBLIC_V4], ["10.0.0.1"]] });
    const guard = guardWith({ lookup });
    expect((await guard.check("https://api.example.com/v1")).ok).toBe(true);
    for (let i = 0; i < 3; i++) expect(await connect(guard, "api.example.com")).toEqual({ ok: true, addresses: [PUBLIC_V4, PUBLIC_V6] });
    expect(calls).toEqual(["api.example.com"]);
  });

  it("re-resolves once the verdict expired and refuses a rebinding to any non-public address", async () => {
    for (const rebound of ["127.0.0.1", "10.0.0.1", "169.254.169.254", "::ffff:169.254.169.254", "fd00::1", "100.64.0.1"]) {
      const { lookup, calls } = staged({ "rebind.example": [[PUBLIC_V4], [rebound]] });
      const guard = guardWith({ lookup, cacheTtlMs: 0, trustLoopback: false });
      expect((await guard.check("http://rebind.example/")).ok, rebound).toBe(true);
      expect(await connect(guard, "rebind.example"), rebound).toEqual({ ok: false, code: "forbidden_custom_host", status: 400 });
      expect(calls, rebound).toHaveLength(2);
    }
  });

  it("refuses a name that no longer resolves as unreachable (502)", async () => {
    const guard = guardWith({ lookup: async () => [], cacheTtlMs: 0 });
    expect(await connect(guard, "gone.example")).toEqual({ ok: false, code: "upstream_unreachable", status: 502 });
  });

  it("pins a name answering loopback when loopback is trusted, and refuses it when not", async () => {
    const { lookup } = staged({ "local.example": [["127.0.0.1"]] });
    expect(await connect(guardWith({ lookup }), "local.example")).toEqual({ ok: true, addresses: ["127.0.0.1"] });
    expect(await connect(guardWith({ lookup, trustLoopback: false }), "local.example")).toMatchObject({ ok: false, code: "forbidden_custom_host" });
  });

  it("leaves unpinned (null, the system resolves them) IP literals, trusted names, exempt provider hosts and localhost", async () => {
    const { lookup, calls } = staged({});
    const guard = guardWith({ lookup, trustedHosts: ["models.internal", "proxy.internal:8443"], exemptHost: (name) => name === "api.openai.com" });
    for (const hostname of ["10.0.0.1", "::1", "[::1]", "models.internal", "MODELS.internal.", "proxy.internal", "api.openai.com", "localhost"]) {
      expect(await connect(guard, hostname), hostname).toEqual({ ok: true, addresses: null });
    }
    expect(calls).toEqual([]);
  });

  it("asks the resolver for localhost when loopback is not trusted", async () => {
    const { lookup } = staged({ localhost: [["127.0.0.1"]] });
    expect(await connect(guardWith({ lookup, trustLoopback: false }), "localhost")).toMatchObject({ ok: false, code: "forbidden_custom_host" });
  });

  it("without public hosts, never dials an unlisted name (as the check refuses it)", async () => {
    const { lookup, calls } = staged({ "api.example.com": [[PUBLIC_V4]] });
    const guard = createCustomHostGuard({ trustedHosts: [], lookup });
    expect(await connect(guard, "api.example.com")).toEqual({ ok: false, code: "forbidden_custom_host", status: 400 });
    expect(calls).toEqual([]);
  });
});

describe("trustLoopback: false", () => {
  it("refuses loopback literals, localhost and names resolving to loopback at the check", async () => {
    const { lookup } = staged({ localhost: [["127.0.0.1"]], "local.example": [["::1"]] });
    const guard = guardWith({ lookup, trustLoopback: false });
    for (const raw of ["http://127.0.0.1:8080/v1", "http://[::1]/", "http://localhost:11434/v1", "http://local.example/"]) {
      const result = await guard.check(raw);
      expect(result.ok ? null : result.error.code, raw).toBe("forbidden_custom_host");
    }
    expect((await createCustomHostGuard({ trustedHosts: ["localhost"], trustLoopback: false }).check("http://localhost/")).ok).toBe(true);
  });
});
