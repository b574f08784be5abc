/**
 * Shapes of everything the build writes to `dist/data/` and the runtime serves. The build checks
 * its output against these before writing; the runtime trusts them and serves the bytes.
 */
import { type Static, Type } from "@sinclair/typebox";
import { LayerNameSchema, VerticalStatusSchema } from "./catalog.ts";
import { CompiledRuleSetSchema } from "./rules.ts";
import { CredentialProblemSchema, UnlockHintSchema } from "./unlock.ts";

export const SourceSchema = Type.Object({ id: Type.String(), title: Type.String(), url: Type.Optional(Type.String()) });
export type Source = Static<typeof SourceSchema>;

export const TextLayerSchema = Type.Object({ text: Type.String({ minLength: 1 }), token_estimate: Type.Integer({ minimum: 0 }) });
export const LogicLayerSchema = Type.Composite([TextLayerSchema, CompiledRuleSetSchema]);
export type LogicLayer = Static<typeof LogicLayerSchema>;

export const LayersSchema = Type.Object(
  {
    logic: Type.Optional(LogicLayerSchema),
    directive: Type.Optional(TextLayerSchema),
    skill: Type.Optional(TextLayerSchema),
    action: Type.Optional(TextLayerSchema),
  },
  { additionalProperties: false },
);
export type Layers = Static<typeof LayersSchema>;

export const NodeStatusSchema = Type.Union([Type.Literal("active"), Type.Literal("deprecated")]);

/** `node` in a node response. `layers` holds only unlocked layers; `locked_layers` names the rest. */
export const NodeDataSchema = Type.Object({
  id: Type.String(),
  title: Type.String(),
  summary: Type.String(),
  /** Content digest of the node; also its strong ETag. */
  version: Type.String(),
  status: NodeStatusSchema,
  created: Type.String(),
  updated: Type.String(),
  /** Date the node was last checked against its sources, and the date by which it must be checked again. */
  reviewed: Type.Optional(Type.String()),
  review_by: Type.Optional(Type.String()),
  deprecated_at: Type.Optional(Type.String()),
  replaced_by: Type.Optional(Type.String()),
  trial: Type.Boolean(),
  sources: Type.Array(SourceSchema),
  /** Estimated tokens of each layer, so an agent can budget before unlocking or fetching. */
  layer_tokens: Type.Object({
    logic: Type.Integer(),
    directive: Type.Integer(),
    skill: Type.Integer(),
    action: Type.Integer(),
  }),
  layers: LayersSchema,
  locked_layers: Type.Array(LayerNameSchema),
  /**
   * Only in a `layers=` response: the layers asked for. A layer missing from `layers` was left
   * out by choice when it is not in `locked_layers`; the build never writes this field.
   */
  selected_layers: Type.Optional(Type.Array(LayerNameSchema)),
});
export type NodeData = Static<typeof NodeDataSchema>;

export const NextNodeSchema = Type.Object({ id: Type.String(), title: Type.String() });

/** The five wrapper fields of a full response (spec: knowledge node). */
export const WrapperSchema = Type.Object({
  node_types_explained: Type.String(),
  performance_preview: Type.String(),
  confidence_calibration: Type.String(),
  cta: Type.String(),
  community_note: Type.String(),
});
export type Wrapper = Static<typeof WrapperSchema>;
export const WRAPPER_FIELDS = Object.keys(WrapperSchema.properties) as Array<keyof Wrapper>;

/**
 * Fields beside a node's data that depend on who reads it: `unlock` is written by the build into
 * the locked variants; `credential_problem` is added by the runtime when it served the free view
 * although the presented key was refused (never written by the build).
 */
const AccessFieldsSchema = Type.Object({
  unlock: Type.Optional(UnlockHintSchema),
  credential_problem: Type.Optional(CredentialProblemSchema),
});

export const NodeResponseSchema = Type.Composite([
  Type.Object({ vertical: Type.String(), node: NodeDataSchema, next_nodes: Type.Array(NextNodeSchema) }),
  WrapperSchema,
  AccessFieldsSchema,
]);
export type NodeResponse = Static<typeof NodeResponseSchema>;

export const LeanNodeResponseSchema = Type.Object(
  { node: NodeDataSchema, next_nodes: Type.Array(NextNodeSchema), ...AccessFieldsSchema.properties },
  { additionalProperties: false },
);
export type LeanNodeResponse = Static<typeof LeanNodeResponseSchema>;

export const IndexEntrySchema = Type.Object({
  id: Type.String(),
  title: Type.String(),
  summary: Type.String(),
  next_nodes: Type.Array(Type.String()),
  trial: Type.Boolean(),
  order: Type.Integer(),
  status: NodeStatusSchema,
  version: Type.String(),
  layer_tokens: NodeDataSchema.properties.layer_tokens,
  /** Bytes of the node's full response with every layer, and of its lean response: the measured saving of `lean`. */
  full_bytes: Type.Integer({ minimum: 1, description: "Bytes of this node's full response with every layer unlocked" }),
  lean_bytes: Type.Integer({ minimum: 1, description: "Bytes of this node's lean response with every layer unlocked (lean=true)" }),
});

/** Root index of a vertical with content. Lean strips the wrapper. */
export const IndexGraphSchema = Type.Composite([
  Type.Object({
    vertical: Type.String(),
    title: Type.String(),
    summary: Type.String(),
    status: VerticalStatusSchema,
    root: Type.String(),
    nodes: Type.Array(IndexEntrySchema),
  }),
  WrapperSchema,
  Type.Object({ credential_problem: Type.Optional(CredentialProblemSchema) }),
]);
export type IndexGraph = Static<typeof IndexGraphSchema>;
export const LeanIndexGraphSchema = Type.Omit(IndexGraphSchema, [...WRAPPER_FIELDS]);

export const ChangeKindSchema = Type.Union([Type.Literal("added"), Type.Literal("updated"), Type.Literal("deprecated")]);
export type ChangeKind = Static<typeof ChangeKindSchema>;

/** One delta entry. Entries are ordered by (`at`, `id`); that pair is what a cursor points after. */
export const ChangelogEntrySchema = Type.Object({
  id: Type.String(),
  node_id: Type.String(),
  vertical: Type.String(),
  change: ChangeKindSchema,
  at: Type.String(),
  version: Type.String(),
  title: Type.String(),
  replaced_by: Type.Optional(Type.String()),
});
export type ChangelogEntry = Static<typeof ChangelogEntrySchema>;

export const ChangelogSchema = Type.Object({ entries: Type.Array(ChangelogEntrySchema) });

export const ManifestNodeSchema = Type.Object({
  version: Type.String(),
  order: Type.Integer(),
  trial: Type.Boolean(),
  status: NodeStatusSchema,
  review_by: Type.Optional(Type.String()),
});

/**
 * The build's signatures of its served files (runtime/domain/signing/): Ed25519 over each file's
 * Content-Digest and Knowledge-Identity, made once at build time. Not part of `files`, so the
 * build id stays a function of the content alone.
 */
export const ManifestSigningSchema = Type.Object({
  kid: Type.String(),
  alg: Type.Literal("ed25519"),
  /** Signed with a development key (no SIGNING_KEY): never a release. */
  dev: Type.Boolean(),
  /** The public JWK of `kid`, so a development build's key can be published with it. */
  public_key: Type.Object({
    kty: Type.Literal("OKP"),
    crv: Type.Literal("Ed25519"),
    x: Type.String(),
    kid: Type.String(),
    use: Type.Literal("sig"),
    alg: Type.Literal("EdDSA"),
  }),
  /** base64 signature of each signed file, by path relative to `dist/data`. */
  signatures: Type.Record(Type.String(), Type.String()),
});
export type ManifestSigning = Static<typeof ManifestSigningSchema>;

export const ManifestSchema = Type.Object({
  build_id: Type.String(),
  api_version: Type.String(),
  /** Latest authored date in the content: the build's notion of "now", never the wall clock. */
  content_date: Type.String(),
  node_count: Type.Integer(),
  verticals: Type.Record(Type.String(), Type.Object({ root: Type.String(), nodes: Type.Record(Type.String(), ManifestNodeSchema) })),
  /** sha256 of every file under dist/data except this manifest, keyed by relative path. */
  files: Type.Record(Type.String(), Type.String()),
  lean_ratio: Type.Number(),
  signing: Type.Optional(ManifestSigningSchema),
});
export type Manifest = Static<typeof ManifestSchema>;
