-- find-or-create: one account per customer, the customer id unique.
DROP TABLE IF EXISTS credit_accounts;
CREATE TABLE credit_accounts (
    id          bigserial PRIMARY KEY,
    customer_id integer NOT NULL UNIQUE
);
