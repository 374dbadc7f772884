import { describe, expect, it } from "vitest";
import { registerFunctionName, renderRouteModules } from "./route-modules.ts";

describe("renderRouteModules", () => {
  it("imports every operation's route file statically and lists its register function", () => {
    const ok = { "200": { description: "OK" } };
    const source = renderRouteModules({
      paths: {
        "/v1/things": { post: { operationId: "createThing", responses: ok }, get: { operationId: "listThings", responses: ok } },
        "/health": { get: { operationId: "getHealth", responses: ok } },
      },
      components: { schemas: {} },
    });
    expect(source).toContain('import { registerCreateThing } from "../routes/createThing.ts";');
    expect(source).toContain('import { registerListThings } from "../routes/listThings.ts";');
    expect(source).toContain('import { registerGetHealth } from "../routes/getHealth.ts";');
    expect(/routeRegistrations[^=]*= \[([\s\S]*?)\];/.exec(source)?.[1]?.match(/register\w+/g)).toEqual([
      "registerGetHealth",
      "registerListThings",
      "registerCreateThing",
    ]);
  });

  it("names the register function after the operationId", () => {
    expect(registerFunctionName("createChatCompletion")).toBe("registerCreateChatCompletion");
  });
});
