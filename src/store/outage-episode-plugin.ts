import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, RootOperationNode, UnknownRow } from "kysely";
import { storeOutage } from "./store-unavailable.ts";

/** Ends an outage episode (`storeOutage`) when the store answers a query again; changes nothing. */
export class OutageEpisodePlugin implements KyselyPlugin {
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return args.node;
  }

  transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    storeOutage.answered();
    return Promise.resolve(args.result);
  }
}
