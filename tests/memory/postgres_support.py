"""The PostgreSQL server of the tests, named by ``PRAISONLIKE_TEST_POSTGRES_URL``.

Start one with scripts/start_postgres.sh; tests that need it skip when the variable is
unset or psycopg is missing.
"""

from __future__ import annotations

import os

import pytest

from praisonlike.memory.postgres_store import PostgresStore

URL_ENV = "PRAISONLIKE_TEST_POSTGRES_URL"
CONTRACT_SCHEMA = "praisonlike_contract"


def postgres_url() -> str:
    """The test server's URL; skips the calling test when there is none."""
    url = os.environ.get(URL_ENV, "").strip()
    if not url:
        pytest.skip(f"{URL_ENV} is not set (run scripts/start_postgres.sh)")
    pytest.importorskip("psycopg", reason="needs psycopg (praisonlike[postgres])")
    return url


def drop_schema(url: str, schema: str) -> None:
    import psycopg
    from psycopg import sql

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema)))


def fresh_store(schema: str = CONTRACT_SCHEMA) -> PostgresStore:
    """A store on an emptied schema of the test server."""
    url = postgres_url()
    drop_schema(url, schema)
    return PostgresStore(url, schema=schema)
