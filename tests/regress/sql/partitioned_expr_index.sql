-- Expression and partial indexes on partitioned tables: the parent's
-- index is a partitioned index; each partition (present, created later,
-- attached, and down a sub-partitioned one) has its own, bound over its
-- own column numbering.
create table pe (a int, b int, c text) partition by list (a);
create table pe1 partition of pe for values in (1);
create index on pe ((b + 1));
create index on pe (lower(c));
create index on pe (b) where b > 0;
create index pe_named on pe (a, (b * 2)) where c <> 'x';
-- a partition created later
create table pe3 partition of pe for values in (3);
-- a table with its columns in another order and one dropped, attached
-- with a matching index of its own (reused, keeping its name)
create table pe2 (junk int, c text, b int, a int);
alter table pe2 drop column junk;
create index pe2_own_lower on pe2 (lower(c));
insert into pe2 values ('Two', 20, 2);
alter table pe attach partition pe2 for values in (2);
-- a sub-partitioned partition
create table pe4 partition of pe for values in (4, 5) partition by list (a);
create table pe45 partition of pe4 for values in (5);
\d pe
\d pe1
\d pe2
\d pe3
\d pe4
\d pe45
select c.relname, c.relkind, pg_get_indexdef(i.indexrelid)
  from pg_index i join pg_class c on c.oid = i.indexrelid
  where i.indrelid::regclass::text like 'pe%'
  order by c.relname;
-- the partitioned index and its partitions (pg_inherits)
\d pe_expr_idx
\d+ pe_expr_idx
\d pe2_expr_idx
select inhrelid::regclass, inhparent::regclass from pg_inherits
  where inhrelid::regclass::text like 'pe%idx' or inhrelid::regclass::text = 'pe2_own_lower'
  order by inhrelid::regclass::text;
select relname, relispartition, relhassubclass from pg_class
  where relname in ('pe_expr_idx', 'pe1_expr_idx', 'pe4_expr_idx', 'pe45_expr_idx') order by 1;
insert into pe values (1, 10, 'One'), (3, 30, 'Three'), (5, 50, 'Five'), (1, -1, 'x');
select * from pe order by a, b;
-- the partitions' indexes serve queries as a table's would
set enable_seqscan = off;
set enable_bitmapscan = off;
explain (costs off) select a, b from pe where a = 2 and b + 1 = 21;
explain (costs off) select a, c from pe where a = 1 and lower(c) = 'one';
select a, b from pe where a = 2 and b + 1 = 21;
select a, c from pe where a = 1 and lower(c) = 'one' and b > 0;
select a, b from pe where b + 1 = 31;
select a, c from pe where lower(c) = 'two';
select a, b from pe where b > 0 and b = 50;
reset enable_seqscan;
reset enable_bitmapscan;
-- CREATE INDEX on the parent reuses a partition's matching index
create index pe1_b_mine on pe1 (b) where c is not null;
create index on pe (b) where c is not null;
\d pe1
-- a partition's index that a parent's index uses cannot be dropped
drop index pe1_lower_idx;
drop index pe2_own_lower;
-- dropping the parent's index drops the partitions'
drop index pe_lower_idx;
\d pe2
\d pe45
-- unique expression indexes must include the partition key columns
create unique index on pe ((a + 1));
create unique index on pe (b) where a > 0;
create unique index on pe (lower(c), a);
create unique index on pe (a) where b > 0;
insert into pe values (1, 11, 'ONE');
insert into pe values (5, 1, 'five');
insert into pe values (2, 1, 'TWO');
insert into pe values (2, 1, 'Deux');
select count(*) from pe;
create table pk (a int, b int) partition by list ((a + 1));
create unique index on pk ((a + 1));
create unique index on pk (a) where b > 0;
create index on pk ((a + 1)) where b > 0;
create table pk1 partition of pk for values in (2);
\d pk1
-- a unique index over existing duplicates fails in the partition
create table pu (a int, b int) partition by list (a);
create table pu1 partition of pu for values in (1);
insert into pu values (1, 1), (1, -1);
create unique index on pu (a, abs(b));
create unique index on pu (a, abs(b)) where b > 0;
insert into pu values (1, 2), (1, -2);
-- upstream's part_column_drop
create table part_column_drop (
  useless_1 int,
  id int,
  useless_2 int,
  d int,
  b int,
  useless_3 int
) partition by range (id);
alter table part_column_drop drop column useless_1;
alter table part_column_drop drop column useless_2;
alter table part_column_drop drop column useless_3;
create index part_column_drop_b_pred on part_column_drop(b) where b = 1;
create index part_column_drop_b_expr on part_column_drop((b = 1));
create index part_column_drop_d_pred on part_column_drop(d) where d = 2;
create index part_column_drop_d_expr on part_column_drop((d = 2));
create table part_column_drop_1_10 partition of
  part_column_drop for values from (1) to (10);
\d part_column_drop
\d part_column_drop_1_10
drop table part_column_drop;
drop table pe, pk, pu;
