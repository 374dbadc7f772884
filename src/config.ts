import { z } from "zod";

const csv = z
  .string()
  .optional()
  .transform((value) =>
    (value ?? "")
      .split(",")
      .map((item) => item.trim().toLowerCase())
      .filter((item) => item.length > 0),
  );

const ConfigSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8787),
  HOST: z.string().default("0.0.0.0"),
  GATEWAY_DATABASE_URL: z.string().default("file:./data/gateway.db"),
  GATEWAY_ADMIN_KEY: z.string().min(16, "GATEWAY_ADMIN_KEY must be at least 16 characters").optional(),
  /** 32 bytes, base64 or hex: the master key for secrets at rest. Else one is generated in GATEWAY_DATA_DIR. */
  GATEWAY_ENCRYPTION_KEY: z.string().optional(),
  GATEWAY_DATA_DIR: z.string().default("./data"),
  GATEWAY_CONTROL_PLANE_CACHE_TTL_MS: z.coerce.number().int().positive().default(60_000),
  GATEWAY_TRUSTED_CUSTOM_HOSTS: csv,
  GATEWAY_ALLOW_PUBLIC_CUSTOM_HOSTS: z
    .enum(["0", "1", "true", "false"])
    .default("false")
    .transform((value) => value === "1" || value === "true"),
  GATEWAY_REQUEST_TIMEOUT_MS: z.coerce.number().int().positive().default(600_000),
  GATEWAY_MAX_BODY_BYTES: z.coerce.number().int().positive().default(32 * 1024 * 1024),
  GATEWAY_LOG_FLUSH_INTERVAL_MS: z.coerce.number().int().positive().default(250),
  GATEWAY_LOG_BATCH_SIZE: z.coerce.number().int().positive().default(200),
  GATEWAY_SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
  GATEWAY_KEY_CACHE_TTL_MS: z.coerce.number().int().positive().default(60_000),
  GATEWAY_QUIET: z
    .enum(["0", "1", "true", "false"])
    .default("false")
    .transform((value) => value === "1" || value === "true"),
});

export type GatewayConfig = z.infer<typeof ConfigSchema>;

/** Parses the environment once. This is the only reader of `process.env` in the gateway. */
export function loadConfig(env: Record<string, string | undefined> = process.env): GatewayConfig {
  // An empty variable means "not set", as in most shells' `VAR= command`.
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ""));
  const parsed = ConfigSchema.safeParse(present);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
    throw new Error(`Invalid gateway configuration:\n  ${problems.join("\n  ")}`);
  }
  return parsed.data;
}

/** Builds a config for tests and embedders: defaults plus the given overrides. */
export function configWith(overrides: Partial<GatewayConfig> = {}): GatewayConfig {
  return { ...loadConfig({}), ...overrides };
}
