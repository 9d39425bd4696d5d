"""GraphQL with graphql-core (the Python port of the reference implementation): the schema a client
builds from the server's own introspection, documents validated against it, and the
GraphQL-over-HTTP specification's media types."""
import json
import unittest

import httpx
from graphql import build_client_schema, get_introspection_query, parse, validate

import subjects

RESPONSE = "application/graphql-response+json"


def url():
    plain, _ = subjects.rest()
    return f"http://127.0.0.1:{plain}/graphql"


def post(document, accept=RESPONSE):
    return httpx.post(url(), json={"query": document}, headers={"accept": accept})


class GraphQL(unittest.TestCase):
    def test_a_client_builds_the_schema_from_introspection_and_validates_against_it(self):
        r = post(get_introspection_query())
        self.assertEqual(r.status_code, 200, r.text)
        schema = build_client_schema(r.json()["data"])
        self.assertEqual(validate(schema, parse("{ payload(size: 64) { message } }")), [])
        self.assertNotEqual(validate(schema, parse("{ payload { message } }")), [], "size is required")
        self.assertNotEqual(validate(schema, parse("{ nothing }")), [])

    def test_an_answer_is_the_field_asked_for(self):
        r = post("{ payload(size: 64) { message } }")
        self.assertEqual(r.status_code, 200, r.text)
        # GraphQL-over-HTTP §7.1: the server responds in the media type the client prefers.
        self.assertEqual(r.headers["content-type"].split(";")[0], RESPONSE)
        self.assertEqual(len(r.json()["data"]["payload"]["message"]), 64)

    def test_media_types_follow_the_accept_header(self):
        # §7.1 and RFC 9110 §12.5.1: the preferred acceptable type by q-value; q=0 is "not
        # acceptable"; with neither type acceptable, 406 is the recommended answer.
        r = post("{ payload(size: 64) { message } }", accept=f"application/json, {RESPONSE};q=0.5")
        self.assertEqual(r.headers["content-type"].split(";")[0], "application/json")
        r = post("{ payload(size: 64) { message } }", accept=f"{RESPONSE};q=0, application/json")
        self.assertEqual(r.headers["content-type"].split(";")[0], "application/json")
        self.assertEqual(post("{ payload(size: 64) { message } }", accept="text/html").status_code, 406)

    def test_a_document_that_does_not_parse_is_a_graphql_error(self):
        # §7.1.2 (application/graphql-response+json): a request that cannot be parsed is 400,
        # still a GraphQL response: "errors" and no "data".
        r = post("{ payload(size: ")
        self.assertEqual(r.status_code, 400, r.text)
        body = r.json()
        self.assertIn("errors", body)
        self.assertNotIn("data", body)
        json.dumps(body)  # a JSON object a client can read


if __name__ == "__main__":
    unittest.main()
