-- Columns of pseudo-types are refused (CheckAttributeType).
CREATE TABLE unknowntab (u unknown);
CREATE TYPE unknown_comptype AS (u unknown);
CREATE TABLE pt (a anyelement);
CREATE TABLE pt (a void);
CREATE TABLE pt (a record);
CREATE TABLE pt (a anyarray);
CREATE TYPE ct AS (a anycompatible);
CREATE TABLE ok_t (a int, b text);
