/**
 * The API's shapes the dashboard reads: the types `npm run codegen` generates from
 * openapi/gateway.yaml, so the dashboard cannot drift from what the API answers.
 */
import type { components } from "../../src/generated/openapi.gen.ts";

type Schemas = components["schemas"];

export type LogSummary = Schemas["LogSummary"];
export type LogRecord = Schemas["LogRecord"];
export type LogList = Schemas["LogList"];
export type ApiKey = Schemas["ApiKey"];
/** A key as created: the only answer that carries its secret. */
export type ApiKeyWithSecret = Schemas["ApiKeyWithSecret"];
export type ApiKeyList = Schemas["ApiKeyList"];
export type VirtualKey = Schemas["VirtualKey"];
export type VirtualKeyList = Schemas["VirtualKeyList"];
export type Summary = Schemas["AnalyticsSummary"];
export type Timeseries = Schemas["AnalyticsTimeseries"];
export type Bucket = Schemas["AnalyticsTimeseriesPoint"];
export type Groups = Schemas["AnalyticsGroups"];
export type Group = Schemas["AnalyticsGroup"];
export type Feedback = Schemas["Feedback"];
export type FeedbackList = Schemas["FeedbackList"];

/** What every list answer has; for answers the dashboard reads without a schema of its own (configs, resources). */
export interface List<T> {
  object: "list";
  data: T[];
}
export type Budget = Schemas["Budget"];
export type Run = Schemas["Run"];
export type ReconciliationRowList = Schemas["ReconciliationRowList"];
export type BudgetList = Schemas["BudgetList"];
export type Prompt = Schemas["Prompt"];
export type PromptList = Schemas["PromptList"];
export type PromptMessage = Schemas["PromptMessage"];
export type PromptVersion = Schemas["PromptVersion"];
export type PromptVersionList = Schemas["PromptVersionList"];
export type PromptDiff = Schemas["PromptDiff"];
export type ModelList = Schemas["ModelList"];
export type Experiment = Schemas["Experiment"];
export type ExperimentList = Schemas["ExperimentList"];
export type ExperimentVariant = Schemas["ExperimentVariant"];
export type ExperimentGuard = Schemas["ExperimentGuard"];
export type ExperimentStopReason = Schemas["ExperimentStopReason"];
export type ExperimentResults = Schemas["ExperimentResults"];
export type VariantResults = Schemas["VariantResults"];
export type MetricComparison = Schemas["MetricComparison"];
export type Estimate = Schemas["Estimate"];
