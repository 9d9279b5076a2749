// An integration written against the types openapi-typescript generates from the served
// OpenAPI document, with openapi-fetch: it lists the deals matching Q and prints their
// names as a JSON array. restapi/stock_tools_test.go compiles it with tsc --strict in a
// fresh folder and runs it against a served instance.
import createClient from "openapi-fetch";
import type { paths } from "./schema.js";

const client = createClient<paths>({
  baseUrl: process.env.BASE_URL,
  headers: { apikey: process.env.APIKEY, Authorization: `Bearer ${process.env.TOKEN}` },
});

const q = process.env.Q ?? "";
const { data, error, response } = await client.GET("/deals", { params: { query: { q } } });
if (data === undefined) {
  throw new Error(`GET /deals?q=${q}: ${response.status} ${JSON.stringify(error)}`);
}
const names: string[] = [];
for (const deal of data.data) {
  if (typeof deal.name === "string") {
    names.push(deal.name);
  }
}
console.log(JSON.stringify(names));
