import { OperationNodeTransformer, type KyselyPlugin, type PluginTransformQueryArgs, type PluginTransformResultArgs, type PrimitiveValueListNode, type QueryResult, type RootOperationNode, type UnknownRow, type ValueNode } from "kysely";

/**
 * PostgreSQL text cannot hold U+0000 (`invalid byte sequence for encoding "UTF8": 0x00`), which
 * JSON strings can carry (`"user": "a\u0000"`). Unfiltered, one such value fails its statement:
 * a 500 for the caller, and for the log writer the whole batch, dropping other callers' records.
 * Every string parameter has U+0000 replaced by U+FFFD before it is sent, for writes and the
 * reads that look them up alike (SQLite stores U+0000 as it is).
 */
const NUL = /\u0000/g;

const cleaned = (value: unknown): unknown => (typeof value === "string" && value.includes("\u0000") ? value.replace(NUL, "\uFFFD") : value);

class WithoutNulTransformer extends OperationNodeTransformer {
  protected override transformValue(node: ValueNode): ValueNode {
    const value = cleaned(node.value);
    return value === node.value ? super.transformValue(node) : { ...node, value };
  }

  protected override transformPrimitiveValueList(node: PrimitiveValueListNode): PrimitiveValueListNode {
    return node.values.some((value) => cleaned(value) !== value) ? { ...node, values: node.values.map(cleaned) } : super.transformPrimitiveValueList(node);
  }
}

/** The Kysely plugin the PostgreSQL dialect runs every query through. */
export class WithoutNulCharactersPlugin implements KyselyPlugin {
  readonly #transformer = new WithoutNulTransformer();

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return this.#transformer.transformNode(args.node);
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}
