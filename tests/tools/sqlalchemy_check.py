"""SQLAlchemy 2 (psycopg 3 driver) against a server: ORM create_all, CRUD,
a nested transaction (SAVEPOINT) rolled back, and reflection of what it
created — the answers PostgreSQL gives. Exits non-zero on any mismatch.

Usage: python3 sqlalchemy_check.py PORT
"""

import sys

from sqlalchemy import ForeignKey, String, Text, create_engine, inspect, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column, relationship


class Base(DeclarativeBase):
    pass


class Author(Base):
    __tablename__ = "sa_authors"
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(50), unique=True)
    bio: Mapped[str | None] = mapped_column(Text)
    books: Mapped[list["Book"]] = relationship(back_populates="author", cascade="all, delete-orphan")


class Book(Base):
    __tablename__ = "sa_books"
    id: Mapped[int] = mapped_column(primary_key=True)
    title: Mapped[str] = mapped_column(String(100))
    author_id: Mapped[int] = mapped_column(ForeignKey("sa_authors.id", ondelete="CASCADE"))
    author: Mapped[Author] = relationship(back_populates="books")


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
        ann = s.scalars(select(Author).where(Author.name == "ann")).one()
        ann.books.append(Book(title="t1"))
        ann.books.append(Book(title="t2"))
        s.commit()
        titles = s.scalars(select(Book.title).join(Author).where(Author.name == "ann").order_by(Book.id)).all()
        check("books through the relationship", titles, ["t1", "t2"])
        s.add(Book(title="orphan", author_id=999))
        try:
            s.commit()
            check("a book of no author is refused", False, True)
        except IntegrityError as e:
            check("foreign key violation", type(e.orig).__name__, "ForeignKeyViolation")
            s.rollback()
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
    fks = [
        (f["name"], f["constrained_columns"], f["referred_table"], f["referred_columns"], f["options"])
        for f in insp.get_foreign_keys("sa_books")
    ]
    check(
        "book foreign keys",
        fks,
        [("sa_books_author_id_fkey", ["author_id"], "sa_authors", ["id"], {"ondelete": "CASCADE"})],
    )
    Base.metadata.drop_all(engine)
    check("dropped", inspect(engine).has_table("sa_authors"), False)
    print("ok")


main()
