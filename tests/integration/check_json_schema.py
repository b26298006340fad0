#!/usr/bin/python3
"""Validates JSON documents against a JSON Schema with Debian's python3-jsonschema (an independent
implementation of the standard): check_json_schema.py SCHEMA DOCUMENT...

The schema itself is first checked against the draft 2020-12 metaschema. Prints one line per problem
(document, JSON pointer, message) and exits 1 when any document is invalid, 2 on a bad schema."""
import json
import sys

import jsonschema


def main() -> int:
    with open(sys.argv[1]) as f:
        schema = json.load(f)
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError as e:
        print(f"{sys.argv[1]}: not a valid draft 2020-12 schema: {e.message}")
        return 2
    validator = jsonschema.Draft202012Validator(schema)
    invalid = 0
    for path in sys.argv[2:]:
        with open(path) as f:
            document = json.load(f)
        errors = sorted(validator.iter_errors(document), key=lambda e: list(map(str, e.path)))
        for e in errors:
            print(f"{path}: /{'/'.join(map(str, e.path))}: {e.message}")
        print(f"{path}: {'ok' if not errors else 'INVALID'}")
        invalid += bool(errors)
    return 1 if invalid else 0


if __name__ == "__main__":
    sys.exit(main())
