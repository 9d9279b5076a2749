// An integration written against the types openapi-typescript generates from a workspace's
// own OpenAPI document (GET /v1/openapi.json?workspace=current), where custom_fields is
// typed: restapi/openapi_workspace_test.go defines the fields (deals: tier, a select of
// gold and silver, required; renewal, a date ...), compiles this with tsc --strict and runs
// it. It creates a deal with custom values, then lists the gold deals renewing before 2027
// by custom filters and a custom sort, and prints them as JSON. The @ts-expect-error lines
// hold only where the types are the workspace's: against the generic document, where
// custom_fields is an open object, tsc reports them unused.
import createClient from "openapi-fetch";
import type { paths, components } from "./schema.js";

const client = createClient<paths>({
  baseUrl: process.env.BASE_URL,
  headers: { apikey: process.env.APIKEY, Authorization: `Bearer ${process.env.TOKEN}` },
});

function must<T>(what: string, r: { data?: T; error?: unknown; response: Response }): T {
  if (r.data === undefined) {
    throw new Error(`${what}: ${r.response.status} ${JSON.stringify(r.error)}`);
  }
  return r.data;
}

type DealFields = NonNullable<components["schemas"]["deals_create"]["custom_fields"]>;
// @ts-expect-error tier is required on create
const missingTier: DealFields = { renewal: "2026-12-01" };
// @ts-expect-error bronze is not an option of tier
const bronze: DealFields = { tier: "bronze" };
void missingTier;
void bronze;

const pipeline = must("POST /pipelines", await client.POST("/pipelines", { body: { name: "Sales" } }));
for (const [name, custom] of [
  ["Acme", { tier: "gold", renewal: "2026-12-01", retainer: { amount: 1500, currency: "EUR" } }],
  ["Globex", { tier: "gold", renewal: "2027-06-01" }],
  ["Initech", { tier: "silver", renewal: "2026-11-01" }],
] as const satisfies ReadonlyArray<readonly [string, DealFields]>) {
  must("POST /deals", await client.POST("/deals", { body: { name, pipeline_id: pipeline.data.id, custom_fields: custom } }));
}

const page = must("GET /deals", await client.GET("/deals", {
  params: { query: { "custom_fields.tier": "gold", "custom_fields.renewal[lt]": "2027-01-01", sort: "-custom_fields.renewal" } },
}));
const out: { name: string; tier: "gold" | "silver" | null | undefined; renewal: string | null | undefined }[] = [];
for (const deal of page.data) {
  out.push({ name: deal.name ?? "", tier: deal.custom_fields?.tier, renewal: deal.custom_fields?.renewal });
}
console.log(JSON.stringify(out));
