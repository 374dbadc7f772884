import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "./processes.ts";
import { GATEWAY_RUNTIME_ENV } from "./setup.ts";

describe("the gateway the bench and the soak start", () => {
  it("runs with the runtime settings npm start gives it", () => {
    const start = (JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts.start!;
    for (const [name, value] of Object.entries(GATEWAY_RUNTIME_ENV)) expect(start).toContain(`${name}=\${${name}:-${value}}`);
  });
});
