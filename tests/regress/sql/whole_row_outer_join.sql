-- A table's whole row is NULL where an outer join NULL-extends it
-- (not a row of NULLs)
create table wa (id int, v text);
create table wb (id int, w text);
insert into wa values (1, 'a'), (2, 'b'), (3, null);
insert into wb values (1, 'x'), (3, null), (null, null);
select wa.id, row_to_json(wb) from wa left join wb on wa.id = wb.id order by 1;
select wa.id, count(wb.*), count(wb) from wa left join wb on wa.id = wb.id group by 1 order by 1;
select wa.id, wb is null as isnull, wb is not null as notnull, wb::text from wa left join wb on wa.id = wb.id order by 1;
select wb, wb is null from wb order by 1;
select wa.id, wb from wa full join wb on wa.id = wb.id order by 1, 2;
select wa.id, to_jsonb(wb) from wa left join wb on wa.id = wb.id where wa.id < 3 order by 1;
select wa.id, (select wb.w) from wa left join wb on wa.id = wb.id order by 1;
select wa.id, x from wa left join wb on wa.id = wb.id, lateral (select wb as x) s order by 1;
update wb set w = 'y' where id = 1 returning wb;
-- inheritance and partitions: the same
create table wp (id int, v text) partition by range (id);
create table wp1 partition of wp for values from (0) to (10);
insert into wp values (1, 'p');
select wa.id, row_to_json(wp) from wa left join wp on wa.id = wp.id order by 1;
drop table wa, wb, wp;
