import { buildDashboard } from "../../scripts/build-dashboard.ts";

/** Vitest global setup: the dashboard's bundle exists (rebuilt only when its sources changed). */
export default async function setup(): Promise<void> {
  await buildDashboard();
}
