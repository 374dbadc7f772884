import { describe, expect, it } from "vitest";
import { GatewayError } from "../errors.ts";
import { chainTranslators, type StreamTranslator } from "./stream-protocol.ts";

describe("chainTranslators", () => {
  const provider: StreamTranslator = {
    event: (event) => [{ data: event.data.toUpperCase() }, { data: "usage", to: "log" }],
    end: () => [{ data: "[DONE]", to: "client" }],
  };
  const client: StreamTranslator = {
    event: (event) => (event.data === "[DONE]" ? [] : [{ event: "seen", data: event.data }]),
    end: () => [{ event: "stop", data: "{}" }],
    error: (error) => [{ event: "error", data: error.message }],
  };

  it("passes every event the first gives, whoever it was for, through the second", () => {
    const chained = chainTranslators(provider, client);
    expect(chained.event({ event: null, data: "a" })).toEqual([
      { event: "seen", data: "A" },
      { event: "seen", data: "usage" },
    ]);
    expect(chained.end!()).toEqual([{ event: "stop", data: "{}" }]);
    expect(chained.error!(new GatewayError("upstream_error", "cut"))).toEqual([{ event: "error", data: "cut" }]);
  });

  it("gives the upstream's events to the second when there is no first, and no error hook when neither has one", () => {
    expect(chainTranslators(null, client).event({ event: "x", data: "b" })).toEqual([{ event: "seen", data: "b" }]);
    expect(chainTranslators(provider, { event: () => [] }).error).toBeUndefined();
  });
});
