"""Django 5.2 (psycopg 3) against a server: migrate contenttypes and auth
(identity-free BigAutoField serials, DEFERRABLE INITIALLY DEFERRED foreign
keys, ALTER COLUMN TYPE), CRUD through a many-to-many relation, a
transaction.atomic savepoint rolled back on a unique violation,
constraint introspection, and migrating both apps back to zero. Exits
non-zero on any mismatch.

Usage: python3 django_check.py PORT
"""

import sys

import django
from django.conf import settings

settings.configure(
    DATABASES={
        "default": {
            "ENGINE": "django.db.backends.postgresql",
            "NAME": "postgres",
            "USER": "postgres",
            "HOST": "127.0.0.1",
            "PORT": sys.argv[1],
        }
    },
    INSTALLED_APPS=["django.contrib.contenttypes", "django.contrib.auth"],
    USE_TZ=True,
    DEFAULT_AUTO_FIELD="django.db.models.BigAutoField",
)
django.setup()

from django.contrib.auth.models import Group, Permission, User  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import IntegrityError, connection, transaction  # noqa: E402


def check(what, got, want):
    if got != want:
        print(f"{what}: got {got!r}, want {want!r}", file=sys.stderr)
        sys.exit(1)


call_command("migrate", verbosity=0)
tables = connection.introspection.table_names()
check("auth tables", {"auth_user", "auth_group", "auth_permission", "django_content_type"} <= set(tables), True)
u = User.objects.create_user("ann", "ann@example.com", "pw")
g = Group.objects.create(name="editors")
u.groups.add(g)
g.permissions.add(Permission.objects.first())
check("user in group", list(User.objects.filter(groups__name="editors").values_list("username", flat=True)), ["ann"])
try:
    with transaction.atomic():
        User.objects.create_user("ann", "dup@example.com", "pw")
except IntegrityError:
    pass
check("users after the failed duplicate", User.objects.count(), 1)
with connection.cursor() as c:
    c.execute(
        "select confrelid::regclass::text, condeferrable, condeferred from pg_constraint"
        " where conrelid = 'auth_user_groups'::regclass and contype = 'f' order by 1"
    )
    fks = c.fetchall()
check("foreign keys of auth_user_groups", fks, [("auth_group", True, True), ("auth_user", True, True)])
with connection.cursor() as c:
    constraints = connection.introspection.get_constraints(c, "auth_user_groups")
fks = sorted(v["foreign_key"] for v in constraints.values() if v["foreign_key"])
check("introspected foreign keys", fks, [("auth_group", "id"), ("auth_user", "id")])
call_command("migrate", "auth", "zero", verbosity=0)
call_command("migrate", "contenttypes", "zero", verbosity=0)
check("tables after migrating to zero", "auth_user" in connection.introspection.table_names(), False)
with connection.cursor() as c:
    c.execute("drop table django_migrations")
print("ok")
