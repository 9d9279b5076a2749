// An integration written against the types openapi-typescript generates from the served
// OpenAPI document (schema.d.ts, made by TestTypeScriptClient next to this file), with
// openapi-fetch. tsc --strict must accept it, and it runs against the server: it reads
// /me, creates a deal (with an Idempotency-Key, retried) and an automation with a trigger
// object, and pages the deals to the end. It prints what it saw as JSON.
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

const me = must("GET /me", await client.GET("/me"));
const email: string = me.data.user.email;
const crm: "none" | "read" | "full" | undefined = me.data.user.grants.crm;

const pipeline = must("POST /pipelines", await client.POST("/pipelines", { body: { name: "Sales" } }));

const key = crypto.randomUUID();
const dealBody: components["schemas"]["deals_create"] = { name: "Acme", pipeline_id: pipeline.data.id, value: 1200.5 };
const deal = must("POST /deals", await client.POST("/deals", { params: { header: { "Idempotency-Key": key } }, body: dealBody }));
const retried = await client.POST("/deals", { params: { header: { "Idempotency-Key": key } }, body: dealBody });
const replayed = retried.response.headers.get("Idempotent-Replayed") === "true" && retried.data?.data.id === deal.data.id;
for (const name of ["Globex", "Initech"]) {
  must("POST /deals", await client.POST("/deals", { body: { name, pipeline_id: pipeline.data.id } }));
}

const automation = must("POST /automations", await client.POST("/automations", {
  body: { name: "Welcome", trigger: { event: "deal_created", pipeline_id: pipeline.data.id }, actions: [{ type: "notify" }] },
}));
const trigger = automation.data.trigger;
const triggerEvent = trigger !== null && typeof trigger === "object" && !Array.isArray(trigger) ? trigger["event"] : undefined;

const deals: { id: string; value: number | null }[] = [];
let cursor: string | undefined;
for (;;) {
  const page = must("GET /deals", await client.GET("/deals", { params: { query: { limit: 1, cursor } } }));
  for (const d of page.data) {
    // A list record carries the fields asked for with fields= (all by default), so each may be absent.
    deals.push({ id: d.id, value: d.value ?? null });
  }
  if (page.next_cursor === null) break;
  cursor = page.next_cursor;
}

console.log(JSON.stringify({ email, crm, deal: deal.data.id, replayed, trigger_event: triggerEvent, deals }));
