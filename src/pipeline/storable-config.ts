import type { SecretBox } from "../crypto/secret-box.ts";
import type { CheckCustomHost } from "../net/custom-host.ts";
import { GatewayError } from "../errors.ts";
import { findProvider } from "../providers/catalogue.ts";
import { parseGatewayConfig } from "./config-body.ts";
import { sealConfigSecrets, type StoredConfig } from "../records/config-secrets.ts";
import { allowedCustomHost } from "../control-plane/virtual-key-fields.ts";

/**
 * A config body (object or JSON text) as it is stored: validated, its providers in the
 * catalogue and its custom hosts allowed by the SSRF guard (at the root and in every target, nested ones too),
 * its upstream keys sealed, the experiment it names one of the workspace (`hasExperiment`).
 * `previous` is the stored text an update replaces: a key sent back masked keeps the one stored
 * there. Throws a 400 GatewayError naming the field (`config.targets.0.provider`).
 */
export async function storableConfig(
  input: unknown,
  deps: { checkCustomHost: CheckCustomHost; secrets: SecretBox; hasExperiment: (id: string) => Promise<boolean> },
  previous: string | null = null,
): Promise<string> {
  const parsed = parseGatewayConfig(input, "config");
  if (!parsed.ok) throw parsed.error;
  const config = parsed.value.value;
  if (config.experiment !== undefined && !(await deps.hasExperiment(config.experiment))) {
    throw new GatewayError("invalid_request", `No experiment ${config.experiment} in this workspace.`, { param: "config.experiment" });
  }
  // Every level: a nested target's host is checked now too, not first by a request.
  const parts: Array<{ part: { provider?: string; custom_host?: string }; param: string }> = [{ part: config, param: "config" }];
  for (const [index, target] of (config.targets ?? []).entries()) {
    parts.push({ part: target, param: `config.targets.${index}` });
    for (const [inner, nested] of (target.targets ?? []).entries()) parts.push({ part: nested, param: `config.targets.${index}.targets.${inner}` });
  }
  for (const { part, param } of parts) {
    if (part.provider !== undefined && !findProvider(part.provider)) {
      throw new GatewayError("unknown_provider", `Unknown provider "${part.provider.slice(0, 100)}".`, { param: `${param}.provider` });
    }
    if (part.custom_host !== undefined) await allowedCustomHost(part.custom_host, `${param}.custom_host`, deps);
  }
  const stored = previous === null ? null : (JSON.parse(previous) as StoredConfig);
  return JSON.stringify(sealConfigSecrets(config, deps.secrets, stored));
}
