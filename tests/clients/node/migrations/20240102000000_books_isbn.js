// A second migration altering a table: a new column and an index.
exports.up = async function up(knex) {
  await knex.schema.alterTable('knx_books', (t) => {
    t.string('isbn', 20);
    t.index(['author_id', 'title'], 'knx_books_author_title');
  });
};

exports.down = async function down(knex) {
  await knex.schema.alterTable('knx_books', (t) => {
    t.dropIndex(['author_id', 'title'], 'knx_books_author_title');
    t.dropColumn('isbn');
  });
};
