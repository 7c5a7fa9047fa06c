"""SQLAlchemy 2 (psycopg 3 driver) against a server: ORM create_all, CRUD,
a nested transaction (SAVEPOINT) rolled back, and reflection of what it
created — the answers PostgreSQL gives. Exits non-zero on any mismatch.

Usage: python3 sqlalchemy_check.py PORT
"""

import sys

from sqlalchemy import String, Text, create_engine, inspect, select
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column


class Base(DeclarativeBase):
    pass


class Author(Base):
    __tablename__ = "sa_authors"
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(50), unique=True)
    bio: Mapped[str | None] = mapped_column(Text)


def check(what, got, want):
    if got != want:
        print(f"{what}: got {got!r}, want {want!r}", file=sys.stderr)
        sys.exit(1)


def main():
    engine = create_engine(f"postgresql+psycopg://postgres@127.0.0.1:{sys.argv[1]}/postgres")
    Base.metadata.drop_all(engine)
    Base.metadata.create_all(engine)
    with Session(engine) as s:
        s.add_all([Author(name="ann"), Author(name="bob", bio="x")])
        s.commit()
        try:
            with s.begin_nested():
                s.add(Author(name="ann"))  # unique violation: savepoint rolled back
        except Exception:
            pass
        s.add(Author(name="cy"))
        s.commit()
        names = s.scalars(select(Author.name).order_by(Author.id)).all()
        check("rows", names, ["ann", "bob", "cy"])
    insp = inspect(engine)
    check("has_table", insp.has_table("sa_authors"), True)
    cols = [(c["name"], str(c["type"]), c["nullable"], c["default"]) for c in insp.get_columns("sa_authors")]
    check(
        "columns",
        cols,
        [
            ("id", "INTEGER", False, "nextval('sa_authors_id_seq'::regclass)"),
            ("name", "VARCHAR(50)", False, None),
            ("bio", "TEXT", True, None),
        ],
    )
    pk = insp.get_pk_constraint("sa_authors")
    check("primary key", (pk["name"], pk["constrained_columns"]), ("sa_authors_pkey", ["id"]))
    uniques = [(u["name"], u["column_names"]) for u in insp.get_unique_constraints("sa_authors")]
    check("unique constraints", uniques, [("sa_authors_name_key", ["name"])])
    indexes = [(i["name"], i["unique"], i["column_names"]) for i in insp.get_indexes("sa_authors")]
    check("indexes", indexes, [("sa_authors_name_key", True, ["name"])])
    check("foreign keys", insp.get_foreign_keys("sa_authors"), [])
    Base.metadata.drop_all(engine)
    check("dropped", inspect(engine).has_table("sa_authors"), False)
    print("ok")


main()
