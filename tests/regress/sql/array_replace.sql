-- array_replace; width_bucket with an array literal.
select array_replace(array[1,2,5,4],5,3);
select array_replace(array[1,2,5,4],5,NULL);
select array_replace(array[1,2,NULL,4,NULL],NULL,5);
select array_replace(array['A','B','DD','B'],'B','CC');
select array_replace(array[1,NULL,3],NULL,NULL);
select array_replace(array['AB',NULL,'CDE'],NULL,'12');
select array_replace(array[[1,2],[1,3]], 1, null), array_replace(null::int[], 1, 2), array_replace(array[1.5, 2], 1.5, 3);
select array_replace('{1,2}', 1, 2);
select array_replace(array[1], 'x', 2);
SELECT width_bucket(5, array[1,3,7]), width_bucket(5, '{}');
