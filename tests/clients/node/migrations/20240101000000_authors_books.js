// Two tables with a foreign key (knex_check.js runs migrate.latest and
// migrate.rollback over this directory).
exports.up = async function up(knex) {
  await knex.schema.createTable('knx_authors', (t) => {
    t.increments('id');
    t.string('name', 100).notNullable().unique();
    t.timestamps(true, true);
  });
  await knex.schema.createTable('knx_books', (t) => {
    t.increments('id');
    t.integer('author_id').notNullable().references('id').inTable('knx_authors').onDelete('CASCADE');
    t.string('title').notNullable();
    t.decimal('price', 10, 2);
    t.boolean('in_print').notNullable().defaultTo(true);
    t.specificType('tags', 'text[]');
    t.date('published');
  });
};

exports.down = async function down(knex) {
  await knex.schema.dropTable('knx_books');
  await knex.schema.dropTable('knx_authors');
};
