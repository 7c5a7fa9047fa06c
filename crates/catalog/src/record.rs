//! Catalog records: the redo of schema changes and the catalog part of a
//! checkpoint, as typed values with a byte encoding.
//!
//! A schema change is logged as the *result* it produced, not as the SQL
//! that produced it: `PutTable` carries the whole new table definition
//! (columns with types, defaults and CHECK expressions as SQL text, indexes
//! with their OIDs, the storage relation id), so recovery installs it
//! without parsing, binding or a session. The same records describe the
//! catalog in a checkpoint (one `PutSequence` per sequence and one
//! `PutTable` per table), so a checkpoint never replays history.
//!
//! ```text
//!  record   := 0x02 Sequences   n:u32 (name last:i64 called:u8)*
//!            | 0x0A PutTable    table
//!            | 0x0B DropTable   name
//!            | 0x0C PutSequence sequence
//!            | 0x0D DropSequence name
//!            | 0x0E PutFunction  function
//!            | 0x0F DropFunction name oid:u32
//!            | 0x10 RenameTable  from:name to:name
//!            | 0x11 PutView      oid:u32 rule:u32 name query ncols:u32
//!                                (name typoid:u32 typmod:i32)* ndeps:u32 oid:u32*
//!                                [flags:u8 [nrules:u32 rule* [ntriggers:u32 trigger*
//!                                [ndefaults:u32 (pos:u32 expr)*
//!                                [ncoldeps:u32 (rel:u32 n:u32 attnum:i16*)*]]]]]
//!                                (coldeps: the table columns it reads; records
//!                                before Nestor kept them end before)
//!                                flags: bits 0-1 check option (0 none, 1 local,
//!                                2 cascaded), 2 security_invoker, 3 security_barrier
//!            | 0x12 DropView     name
//!            | 0x13 Comment      class:u32 obj:u32 sub:i32 text?   (none: removed)
//!            | 0x14 PutRole      oid:u32 name flags:u8 connlimit:i32 password?
//!                                valid_until:(0x00 | 0x01 i64) nmember:u32
//!                                (role:u32 grantor:u32 admin:u8)*
//!                                flags: bit 0 superuser, 1 inherit, 2 createrole,
//!                                3 createdb, 4 login, 5 replication, 6 bypassrls
//!            | 0x15 DropRole     name
//!            | 0x16 SetAcl       class:u32 obj:u32 (0x00 | 0x01 owner:u32 acl? [cols])
//!                                acl: n:u32 (grantee:u32 grantor:u32 privs:u16 grant:u16)*
//!                                cols: n:u32 (attnum:u32 acl)*   (column ACLs;
//!                                left out when there are none)
//!                                (absent: back to the default owner and ACL)
//!            | 0x17 SetRoleSettings database:u32 role:u32
//!                                (0x00 | 0x01 n:u32 (name value)*)
//!                                (absent: the entry removed)
//!            | 0x18 SetDefaultAcl role:u32 schema:u32 objtype:u8
//!                                (0x00 | 0x01 acl)   (absent: the entry removed)
//!            | 0x19 PutEnum      oid:u32 array_oid:u32 name owner:u32 nlabels:u32
//!                                (oid:u32 sortorder:f32 rank:(len:u32 bytes) name)*
//!            | 0x1A DropEnum     name
//!            | 0x1C PutSchema    oid:u32 name   (its owner and ACL: SetAcl)
//!            | 0x1D DropSchema   oid:u32
//!            | 0x1E InSchema     namespace:u32 record
//!                                (the enclosed record applies in that schema;
//!                                a record outside one applies in `public`)
//!            | 0x1F PutDomain    oid:u32 array_oid:u32 name owner:u32
//!                                basetype:u32 basetypmod:i32 parent:u32 (0: none)
//!                                notnull:u8 default?
//!                                nchecks:u32 (oid:u32 name expr validated:u8)*
//!            | 0x20 DropDomain   name
//!            | 0x1B PutDatabase  oid:u32 name owner:u32 flags:u8 connlimit:i32
//!                                flags: bit 0 is_template, 1 allow_conn
//!            | 0x21 DropDatabase oid:u32
//!            | 0x22 InDatabase   database:u32 record
//!                                (the enclosed record, maybe an InSchema one,
//!                                applies in that database; a record outside
//!                                one applies in `postgres`, a role's in the
//!                                cluster)
//!            | 0x23 Batch        n:u32 (len:u32 record)*   (several records,
//!                                none a Batch: a commit's sequence states in
//!                                several databases)
//!            | 0x28 PutComposite oid:u32 array_oid:u32 relid:u32 name owner:u32
//!                                nattrs:u32 (name typoid:u32 typmod:i32)*
//!            | 0x29 DropComposite name
//!            | 0x40 PutAggregate function sfunc stype:(oid:u32 typmod:i32)
//!                                finalfunc? initcond? combinefunc? extra:u8
//!                                (a function made by CREATE AGGREGATE; its
//!                                removal is a DropFunction)
//!            | 0x44 PutCast      oid:u32 source:u32 target:u32 context:u8
//!                                method:u8 [func:u32 name]
//!                                (context 'i' 'a' 'e', method 'f' 'i' 'b'
//!                                as in pg_cast; func and name for 'f')
//!            | 0x45 DropCast     source:u32 target:u32
//!            | 0x50 PutOpFamily  oid:u32 name am:u32 owner:u32
//!            | 0x51 DropOpFamily oid:u32
//!            | 0x52 PutOpClass   oid:u32 name am:u32 family:u32 intype:u32
//!                                default:u8 owner:u32
//!                                nops:u32 (oid:u32 number:i16 opr:u32 left:u32 right:u32)*
//!                                nprocs:u32 (oid:u32 number:i16 func:u32 name left:u32 right:u32)*
//!                                (am: pg_am.oid, 403 btree or 405 hash)
//!            | 0x53 DropOpClass  oid:u32
//!            | 0x54 SetExtension name (0x00 | 0x01 oid:u32 version)   (0x00: dropped)
//!  table    := oid:u32 storage:u32 name persistence:u8 base_width:u32
//!              ncols:u32 column* nchecks:u32 (name expr)* nidx:u32 index*
//!              nowned:u32 name* [ntrig:u32 trigger*] [nfk:u32 fk*]
//!              [nident:u32 identity*] [matview?] [nnotvalid:u32 name*]
//!              [ninherits:u32 oid:u32*] [partkey? partbound?] [nrules:u32 rule*]
//!              [rls:u8 npolicies:u32 policy*]
//!              (rls: bit 0 ENABLE, 1 FORCE ROW LEVEL SECURITY; records
//!              before row-level security end before it)
//!  rule     := oid:u32 name event:u8 (pg_rewrite.ev_type) instead:u8 qual?
//!              nactions:u32 name*   (condition and actions: SQL text)
//!  policy   := oid:u32 name cmd:u8 (pg_policy.polcmd) permissive:u8
//!              nroles:u32 role:u32* (0: PUBLIC) using? check?   (SQL text)
//!  partkey  := strategy:u8 ('r' 'l' 'h') ncols:u32 col:u32*   (columns only)
//!            | strategy:u8 ('R' 'L' 'H') n:u32 (keypart collation:name? [opclass:u32])*
//!  keypart  := 0x00 col:u32 | 0x01 expr:name typoid:u32 typmod:i32 ncols:u32 col:u32*
//!              (a key expression: SQL text, its type, the columns it reads)
//!            | 0x02 col:u32 | 0x03 expr...  (the same, naming a user operator
//!              class: its OID follows the collation; records before
//!              operator classes had only 0x00 and 0x01)
//!  partbound:= 0x00 (DEFAULT) | 0x01 nvals:u32 value* (IN)
//!            | 0x02 n:u32 rdatum* n:u32 rdatum* (FROM .. TO)
//!            | 0x03 modulus:u32 remainder:u32 (WITH)
//!  rdatum   := 0x00 (MINVALUE) | 0x01 value | 0x02 (MAXVALUE)
//!  matview  := query populated:u8 rule:u32 ndeps:u32 oid:u32*
//!  trigger  := oid:u32 name timing:u8 events:u8 ncols:u32 name* row:u8
//!              when? function:u32 nargs:u32 name*
//!  column   := name typoid:u32 typmod:i32 flags:u8 default? missing:value
//!              (a column of a domain: the domain's OID and typmod -1)
//!              [storage:u8 compression:u8]
//!              flags: bit 0 not null, 1 dropped, 2 stored generated
//!              (`default` is then the generation expression; records
//!              before generated columns had no bit 2), 3: storage and
//!              compression follow (attstorage / attcompression bytes, 0
//!              for the default; records before them had no bit 3)
//!  index    := oid:u32 name ncols:u32 col:u32* flags:u8 [computed]
//!              flags: bit 0 unique, 1 primary, 2 constraint, 3 computed
//!              (an expression or partial index: ncols is 0 and
//!              `computed` follows; records before these had no bit 3),
//!              4 NULLS NOT DISTINCT, 5 hash access method (clear: btree;
//!              records before hash indexes had no bit 5), 6 gin access
//!              method (computed; `gin` follows `computed`), 7 key
//!              options follow (`keyopts`, after `computed` and `gin`;
//!              records before them had no bit 7: all defaults)
//!  computed := nkeys:u32 (0x00 col:u32 | 0x01 expr)* predicate?
//!  keyopts  := nkeys:u32 (order:u8 collation:name? opclass:name?
//!              nopts:u32 (name value)*)*   (order: bit 0 DESC, 1 NULLS
//!              FIRST, as pg_index.indoption)
//!  gin      := nkeys:u32 class:u8* nopts:u32 (name value)*
//!              (GinClass::code per key; storage parameters as written)
//!  sequence := oid:u32 name increment:i64 min:i64 max:i64 start:i64 cycle:u8
//!              owned:u8 [table column] last:i64 called:u8
//!              [typoid:u32 cache:i64]  (AS type 21/23/20, 0: not kept)
//!  function := oid:u32 name kind:u8 nargs:u32 arg* returns retset:u8
//!              lang:u8 volatility:u8 strict:u8 body
//!  arg      := name typoid:u32 typmod:i32 mode:u8 default?
//!  returns  := 0x00 typoid:u32 typmod:i32 | 0x01 ncols:u32 (name typoid typmod)*
//!            | 0x02 (trigger) | 0x03 (record)
//!  name     := len:u32 utf8;   x? := 0x00 | 0x01 x;   value: see storage::redo
//! ```
//!
//! Tag 0x01 was "DDL statement as SQL text" in data directories written
//! before typed records; recovery refuses it with a clear message.

use nestor_common::RelId;
use nestor_storage::redo::{encode_value, Reader};
use nestor_types::composites::CompositeDef;
use nestor_types::datatype::DataType;
use nestor_types::domains::{DomainCheck, DomainDef};
use nestor_types::enums::{EnumDef, EnumLabel};
use nestor_types::Value;

use crate::acl::{AclItem, ObjAcl};
use crate::cast::{CastDef, CastMethod};
use crate::defs::{
    FkAction, ForeignKey, Identity, IndexExprs, IndexKey, IndexKeyOpt, MatView, Persistence,
    PolicyCmd, PolicyDef, RowSecurity, RuleDef, RuleEvent, TriggerDef, TriggerEnabled,
    TriggerTiming, ViewCheckOption, ViewDef,
};
use crate::function::{AggregateSpec, ArgMode, FuncArg, Language, Returns, Volatility};
use crate::opclass::{AccessMethod, OpClassDef, OpFamilyDef, OpMember, ProcMember};
use crate::partition::{KeyExpr, KeyPart, PartStrategy, PartitionBound, PartitionKey, RangeDatum};
use crate::role::{Membership, RoleDef};
use nestor_types::cast::Coercion;

const TAG_SEQUENCES: u8 = 0x02;
const TAG_PUT_TABLE: u8 = 0x0A;
const TAG_DROP_TABLE: u8 = 0x0B;
const TAG_PUT_SEQUENCE: u8 = 0x0C;
const TAG_DROP_SEQUENCE: u8 = 0x0D;
const TAG_PUT_FUNCTION: u8 = 0x0E;
const TAG_DROP_FUNCTION: u8 = 0x0F;
const TAG_RENAME_TABLE: u8 = 0x10;
const TAG_PUT_VIEW: u8 = 0x11;
const TAG_DROP_VIEW: u8 = 0x12;
const TAG_COMMENT: u8 = 0x13;
const TAG_PUT_ROLE: u8 = 0x14;
const TAG_DROP_ROLE: u8 = 0x15;
const TAG_SET_ACL: u8 = 0x16;
const TAG_SET_ROLE_SETTINGS: u8 = 0x17;
const TAG_SET_DEFAULT_ACL: u8 = 0x18;
const TAG_PUT_ENUM: u8 = 0x19;
const TAG_DROP_ENUM: u8 = 0x1A;
const TAG_PUT_SCHEMA: u8 = 0x1C;
const TAG_DROP_SCHEMA: u8 = 0x1D;
const TAG_IN_SCHEMA: u8 = 0x1E;
const TAG_PUT_DOMAIN: u8 = 0x1F;
const TAG_DROP_DOMAIN: u8 = 0x20;
const TAG_PUT_DATABASE: u8 = 0x1B;
const TAG_DROP_DATABASE: u8 = 0x21;
const TAG_IN_DATABASE: u8 = 0x22;
const TAG_BATCH: u8 = 0x23;
// 0x24..=0x27 are taken by another branch's records.
const TAG_PUT_COMPOSITE: u8 = 0x28;
const TAG_DROP_COMPOSITE: u8 = 0x29;
const TAG_PUT_AGGREGATE: u8 = 0x40;
// 0x41..=0x43 unused.
const TAG_PUT_CAST: u8 = 0x44;
const TAG_DROP_CAST: u8 = 0x45;
// 0x46..=0x4F unused.
const TAG_PUT_OPFAMILY: u8 = 0x50;
const TAG_DROP_OPFAMILY: u8 = 0x51;
const TAG_PUT_OPCLASS: u8 = 0x52;
const TAG_DROP_OPCLASS: u8 = 0x53;
const TAG_SET_EXTENSION: u8 = 0x54;
/// Written by versions that logged DDL as SQL text.
const TAG_LEGACY_STATEMENT: u8 = 0x01;

/// The state of one sequence: (name, last value, is_called).
pub type SequenceState = (String, i64, bool);

/// One catalog record.
#[derive(Clone, Debug, PartialEq)]
pub enum CatalogRecord {
    /// Install (create or replace) a table definition.
    /// (Boxed: a table record is far larger than the others.)
    PutTable(Box<TableRecord>),
    DropTable {
        name: String,
    },
    /// Install (create or replace) a view.
    PutView(ViewDef),
    DropView {
        name: String,
    },
    /// COMMENT ON (None: IS NULL, the comment removed).
    Comment {
        key: (u32, u32, i32),
        text: Option<String>,
    },
    /// Install (create, replace or rename: by OID) a role.
    PutRole(RoleDef),
    DropRole {
        name: String,
    },
    /// Install (create, replace or rename: by OID) an enum type.
    PutEnum(EnumDef),
    DropEnum {
        name: String,
    },
    /// Install (create, alter or rename: by OID) a domain.
    PutDomain(DomainDef),
    DropDomain {
        name: String,
    },
    /// Install (create or rename: by OID) a composite type.
    PutComposite(CompositeDef),
    DropComposite {
        name: String,
    },
    /// Install a user cast (CREATE CAST).
    PutCast(CastDef),
    /// Remove the cast of (source, target) type OIDs.
    DropCast {
        source: u32,
        target: u32,
    },
    /// Install (create or replace: by OID) a user operator family.
    PutOpFamily(OpFamilyDef),
    DropOpFamily {
        oid: u32,
    },
    /// Install (create or replace: by OID) a user operator class.
    PutOpClass(OpClassDef),
    DropOpClass {
        oid: u32,
    },
    /// Owner and ACL of (class, object); None: back to the default.
    SetAcl {
        key: (u32, u32),
        acl: Option<ObjAcl>,
    },
    /// ALTER DEFAULT PRIVILEGES: the ACL objects of `objtype` (a
    /// pg_default_acl letter) created by `role` (in `schema`, 0: anywhere)
    /// start from; None: the entry removed.
    /// CREATE (Some) / DROP (None) EXTENSION.
    SetExtension {
        name: String,
        ext: Option<crate::defs::ExtensionDef>,
    },
    SetDefaultAcl {
        key: (u32, u32, u8),
        acl: Option<Vec<AclItem>>,
    },
    /// Session defaults of (database, role); None: the entry removed.
    SetRoleSettings {
        key: (u32, u32),
        config: Option<Vec<(String, String)>>,
    },
    /// ALTER TABLE ... RENAME TO (the definition is otherwise unchanged).
    RenameTable {
        from: String,
        to: String,
    },
    /// Install (create or replace) a sequence, with its state.
    PutSequence(SequenceRecord),
    DropSequence {
        name: String,
    },
    /// Sequence states advanced since the previous commit (every commit
    /// carries them; replay keeps the maximum).
    Sequences(Vec<SequenceState>),
    /// Install (create or replace) a function or procedure.
    PutFunction(FunctionRecord),
    DropFunction {
        name: String,
        oid: RelId,
    },
    /// Install (create, rename, change owner: by OID) a schema.
    PutSchema(crate::SchemaDef),
    /// Drop the (empty) schema with this OID.
    DropSchema {
        oid: RelId,
    },
    /// `record` applies in the schema with OID `namespace` (never nested).
    InSchema {
        namespace: u32,
        record: Box<CatalogRecord>,
    },
    /// Install (create, rename, change owner: by OID) a database.
    PutDatabase(crate::DatabaseDef),
    /// Drop the database with this OID and everything in it.
    DropDatabase {
        oid: RelId,
    },
    /// `record` applies in the database with OID `database` (never
    /// nested).
    InDatabase {
        database: u32,
        record: Box<CatalogRecord>,
    },
    /// Several records (none a batch), applied in order.
    Batch(Vec<CatalogRecord>),
}

/// A function definition without its compiled form.
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionRecord {
    pub oid: RelId,
    pub name: String,
    pub procedure: bool,
    pub args: Vec<FuncArg>,
    pub returns: Returns,
    pub retset: bool,
    pub language: Language,
    pub body: String,
    pub volatility: Volatility,
    pub strict: bool,
    /// CREATE AGGREGATE's part (logged as a PutAggregate record).
    pub aggregate: Option<AggregateSpec>,
    /// The domain a scalar result was declared with (`returns` holds its
    /// base type): logged as result tag 5 and the domain's OID.
    pub result_domain: Option<u32>,
}

/// A table definition without its runtime handles.
#[derive(Clone, Debug, PartialEq)]
pub struct TableRecord {
    pub oid: RelId,
    /// Relation id of the storage table (changes on TRUNCATE).
    pub storage: RelId,
    pub name: String,
    pub persistence: Persistence,
    pub base_width: usize,
    pub columns: Vec<ColumnRecord>,
    /// (name, boolean expression as SQL text).
    pub checks: Vec<(String, String)>,
    pub indexes: Vec<IndexRecord>,
    pub owned_sequences: Vec<String>,
    pub triggers: Vec<TriggerDef>,
    pub rules: Vec<RuleDef>,
    pub row_security: RowSecurity,
    pub foreign_keys: Vec<ForeignKey>,
    pub identities: Vec<Identity>,
    pub matview: Option<MatView>,
    /// Constraints added NOT VALID and not validated since.
    pub not_valid: Vec<String>,
    /// The parents it inherits from, by OID, in order.
    pub inherits: Vec<RelId>,
    /// PARTITION BY of a partitioned table.
    pub partition_key: Option<PartitionKey>,
    /// FOR VALUES of a partition.
    pub partition_bound: Option<PartitionBound>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ColumnRecord {
    pub name: String,
    pub ty: DataType,
    /// The domain (pg_type OID) the column was declared with; `ty` is its
    /// base type.
    pub domain: Option<u32>,
    pub not_null: bool,
    pub dropped: bool,
    /// A stored generated column: `default` is its generation expression.
    pub generated: bool,
    pub default: Option<String>,
    pub missing: Value,
    /// attstorage set by ALTER COLUMN SET STORAGE (0: the type's).
    pub storage: u8,
    /// attcompression (0: default).
    pub compression: u8,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexRecord {
    pub oid: RelId,
    pub name: String,
    pub columns: Vec<usize>,
    pub unique: bool,
    pub primary: bool,
    pub constraint: bool,
    /// An expression or partial index's keys and predicate.
    pub exprs: Option<IndexExprs>,
    /// NULLS NOT DISTINCT (flag bit 4; older records have it clear).
    pub nulls_not_distinct: bool,
    /// `USING hash` (flag bit 5; older records, all btree, have it clear).
    pub hash: bool,
    /// `USING gin` (flag bit 6): its classes are in `exprs.gin`.
    pub gin: bool,
    /// Each key's options (flag bit 7; empty: all defaults, and older
    /// records).
    pub keyopts: Vec<IndexKeyOpt>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SequenceRecord {
    pub oid: RelId,
    pub name: String,
    pub increment: i64,
    pub min: i64,
    pub max: i64,
    pub start: i64,
    pub cycle: bool,
    pub owned_by: Option<(String, String)>,
    pub last: i64,
    pub called: bool,
    /// Trailer (absent in older records: 0 and 1).
    pub type_oid: u32,
    pub cache: i64,
}

impl CatalogRecord {
    /// A PutTable record of `t`.
    pub fn put_table(t: TableRecord) -> CatalogRecord {
        CatalogRecord::PutTable(Box::new(t))
    }

    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        match self {
            CatalogRecord::Sequences(seqs) => {
                out.push(TAG_SEQUENCES);
                put_u32(&mut out, seqs.len());
                for (name, last, called) in seqs {
                    put_str(&mut out, name);
                    out.extend_from_slice(&last.to_le_bytes());
                    out.push(*called as u8);
                }
            }
            CatalogRecord::PutTable(t) => {
                out.push(TAG_PUT_TABLE);
                t.encode(&mut out);
            }
            CatalogRecord::DropTable { name } => {
                out.push(TAG_DROP_TABLE);
                put_str(&mut out, name);
            }
            CatalogRecord::PutView(v) => {
                out.push(TAG_PUT_VIEW);
                out.extend_from_slice(&v.oid.0.to_le_bytes());
                out.extend_from_slice(&v.rule_oid.0.to_le_bytes());
                put_str(&mut out, &v.name);
                put_str(&mut out, &v.query);
                put_u32(&mut out, v.columns.len());
                for (name, ty) in &v.columns {
                    put_str(&mut out, name);
                    put_type(&mut out, *ty);
                }
                put_u32(&mut out, v.depends_on.len());
                for d in &v.depends_on {
                    out.extend_from_slice(&d.0.to_le_bytes());
                }
                // Trailing and optional (records before each end before
                // it): check option and flags, rules, triggers, column
                // defaults.
                let defaults = !v.defaults.is_empty() || v.column_deps.is_some();
                let more = !v.rules.is_empty() || !v.triggers.is_empty() || defaults;
                let flags = match v.check_option {
                    ViewCheckOption::None => 0,
                    ViewCheckOption::Local => 1,
                    ViewCheckOption::Cascaded => 2,
                } | (u8::from(v.security_invoker) << 2)
                    | (u8::from(v.security_barrier) << 3);
                if flags != 0 || more {
                    out.push(flags);
                }
                if more {
                    put_rules(&mut out, &v.rules);
                }
                if !v.triggers.is_empty() || defaults {
                    put_triggers(&mut out, &v.triggers);
                }
                if defaults {
                    put_u32(&mut out, v.defaults.len());
                    for (pos, expr) in &v.defaults {
                        put_u32(&mut out, *pos);
                        put_str(&mut out, expr);
                    }
                }
                if let Some(deps) = &v.column_deps {
                    put_u32(&mut out, deps.len());
                    for (rel, cols) in deps {
                        out.extend_from_slice(&rel.0.to_le_bytes());
                        put_u32(&mut out, cols.len());
                        for a in cols {
                            out.extend_from_slice(&a.to_le_bytes());
                        }
                    }
                }
            }
            CatalogRecord::DropView { name } => {
                out.push(TAG_DROP_VIEW);
                put_str(&mut out, name);
            }
            CatalogRecord::Comment { key, text } => {
                out.push(TAG_COMMENT);
                out.extend_from_slice(&key.0.to_le_bytes());
                out.extend_from_slice(&key.1.to_le_bytes());
                out.extend_from_slice(&key.2.to_le_bytes());
                match text {
                    Some(t) => {
                        out.push(1);
                        put_str(&mut out, t);
                    }
                    None => out.push(0),
                }
            }
            CatalogRecord::PutRole(r) => {
                out.push(TAG_PUT_ROLE);
                out.extend_from_slice(&r.oid.0.to_le_bytes());
                put_str(&mut out, &r.name);
                out.push(r.flags());
                out.extend_from_slice(&r.conn_limit.to_le_bytes());
                put_opt_str(&mut out, r.password.as_deref());
                match r.valid_until {
                    None => out.push(0),
                    Some(t) => {
                        out.push(1);
                        out.extend_from_slice(&t.to_le_bytes());
                    }
                }
                put_u32(&mut out, r.member_of.len());
                for m in &r.member_of {
                    out.extend_from_slice(&m.role.0.to_le_bytes());
                    out.extend_from_slice(&m.grantor.0.to_le_bytes());
                    out.push(u8::from(m.admin));
                }
            }
            CatalogRecord::DropRole { name } => {
                out.push(TAG_DROP_ROLE);
                put_str(&mut out, name);
            }
            CatalogRecord::PutEnum(e) => {
                out.push(TAG_PUT_ENUM);
                put_enum(&mut out, e);
            }
            CatalogRecord::DropEnum { name } => {
                out.push(TAG_DROP_ENUM);
                put_str(&mut out, name);
            }
            CatalogRecord::PutDomain(d) => {
                out.push(TAG_PUT_DOMAIN);
                put_domain(&mut out, d);
            }
            CatalogRecord::DropDomain { name } => {
                out.push(TAG_DROP_DOMAIN);
                put_str(&mut out, name);
            }
            CatalogRecord::PutComposite(c) => {
                out.push(TAG_PUT_COMPOSITE);
                put_composite(&mut out, c);
            }
            CatalogRecord::PutCast(c) => {
                out.push(TAG_PUT_CAST);
                put_cast(&mut out, c);
            }
            CatalogRecord::DropCast { source, target } => {
                out.push(TAG_DROP_CAST);
                out.extend_from_slice(&source.to_le_bytes());
                out.extend_from_slice(&target.to_le_bytes());
            }
            CatalogRecord::PutOpFamily(f) => {
                out.push(TAG_PUT_OPFAMILY);
                out.extend_from_slice(&f.oid.to_le_bytes());
                put_str(&mut out, &f.name);
                out.extend_from_slice(&f.am.oid().to_le_bytes());
                out.extend_from_slice(&f.owner.to_le_bytes());
            }
            CatalogRecord::DropOpFamily { oid } => {
                out.push(TAG_DROP_OPFAMILY);
                out.extend_from_slice(&oid.to_le_bytes());
            }
            CatalogRecord::PutOpClass(c) => {
                out.push(TAG_PUT_OPCLASS);
                put_opclass(&mut out, c);
            }
            CatalogRecord::DropOpClass { oid } => {
                out.push(TAG_DROP_OPCLASS);
                out.extend_from_slice(&oid.to_le_bytes());
            }
            CatalogRecord::DropComposite { name } => {
                out.push(TAG_DROP_COMPOSITE);
                put_str(&mut out, name);
            }
            CatalogRecord::SetRoleSettings { key, config } => {
                out.push(TAG_SET_ROLE_SETTINGS);
                out.extend_from_slice(&key.0.to_le_bytes());
                out.extend_from_slice(&key.1.to_le_bytes());
                match config {
                    None => out.push(0),
                    Some(c) => {
                        out.push(1);
                        put_u32(&mut out, c.len());
                        for (name, value) in c {
                            put_str(&mut out, name);
                            put_str(&mut out, value);
                        }
                    }
                }
            }
            CatalogRecord::SetAcl { key, acl } => {
                out.push(TAG_SET_ACL);
                out.extend_from_slice(&key.0.to_le_bytes());
                out.extend_from_slice(&key.1.to_le_bytes());
                let Some(a) = acl else {
                    out.push(0);
                    return out;
                };
                out.push(1);
                out.extend_from_slice(&a.owner.0.to_le_bytes());
                match &a.acl {
                    None => out.push(0),
                    Some(items) => {
                        out.push(1);
                        put_acl_items(&mut out, items);
                    }
                }
                if !a.cols.is_empty() {
                    put_u32(&mut out, a.cols.len());
                    for (attnum, items) in &a.cols {
                        out.extend_from_slice(&(*attnum as u32).to_le_bytes());
                        put_acl_items(&mut out, items);
                    }
                }
            }
            CatalogRecord::SetExtension { name, ext } => {
                out.push(TAG_SET_EXTENSION);
                put_str(&mut out, name);
                match ext {
                    None => out.push(0),
                    Some(e) => {
                        out.push(1);
                        out.extend_from_slice(&e.oid.0.to_le_bytes());
                        put_str(&mut out, &e.version);
                    }
                }
            }
            CatalogRecord::SetDefaultAcl { key, acl } => {
                out.push(TAG_SET_DEFAULT_ACL);
                out.extend_from_slice(&key.0.to_le_bytes());
                out.extend_from_slice(&key.1.to_le_bytes());
                out.push(key.2);
                match acl {
                    None => out.push(0),
                    Some(items) => {
                        out.push(1);
                        put_acl_items(&mut out, items);
                    }
                }
            }
            CatalogRecord::RenameTable { from, to } => {
                out.push(TAG_RENAME_TABLE);
                put_str(&mut out, from);
                put_str(&mut out, to);
            }
            CatalogRecord::PutSequence(s) => {
                out.push(TAG_PUT_SEQUENCE);
                s.encode(&mut out);
            }
            CatalogRecord::DropSequence { name } => {
                out.push(TAG_DROP_SEQUENCE);
                put_str(&mut out, name);
            }
            CatalogRecord::PutFunction(f) => {
                out.push(match f.aggregate {
                    Some(_) => TAG_PUT_AGGREGATE,
                    None => TAG_PUT_FUNCTION,
                });
                f.encode(&mut out);
                if let Some(a) = &f.aggregate {
                    encode_aggregate(a, &mut out);
                }
            }
            CatalogRecord::DropFunction { name, oid } => {
                out.push(TAG_DROP_FUNCTION);
                put_str(&mut out, name);
                out.extend_from_slice(&oid.0.to_le_bytes());
            }
            CatalogRecord::PutSchema(d) => {
                out.push(TAG_PUT_SCHEMA);
                out.extend_from_slice(&d.oid.0.to_le_bytes());
                put_str(&mut out, &d.name);
            }
            CatalogRecord::DropSchema { oid } => {
                out.push(TAG_DROP_SCHEMA);
                out.extend_from_slice(&oid.0.to_le_bytes());
            }
            CatalogRecord::InSchema { namespace, record } => {
                assert!(
                    !matches!(**record, CatalogRecord::InSchema { .. }),
                    "nested InSchema record"
                );
                out.push(TAG_IN_SCHEMA);
                out.extend_from_slice(&namespace.to_le_bytes());
                out.extend_from_slice(&record.encode());
            }
            CatalogRecord::PutDatabase(d) => {
                out.push(TAG_PUT_DATABASE);
                out.extend_from_slice(&d.oid.0.to_le_bytes());
                put_str(&mut out, &d.name);
                out.extend_from_slice(&d.owner.0.to_le_bytes());
                out.push(u8::from(d.is_template) | u8::from(d.allow_conn) << 1);
                out.extend_from_slice(&d.conn_limit.to_le_bytes());
            }
            CatalogRecord::DropDatabase { oid } => {
                out.push(TAG_DROP_DATABASE);
                out.extend_from_slice(&oid.0.to_le_bytes());
            }
            CatalogRecord::InDatabase { database, record } => {
                out.push(TAG_IN_DATABASE);
                out.extend_from_slice(&database.to_le_bytes());
                out.extend_from_slice(&record.encode());
            }
            CatalogRecord::Batch(records) => {
                out.push(TAG_BATCH);
                out.extend_from_slice(&(records.len() as u32).to_le_bytes());
                for r in records {
                    let bytes = r.encode();
                    out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
                    out.extend_from_slice(&bytes);
                }
            }
        }
        out
    }

    /// Decode one record; every read is bounds-checked, so corrupt bytes
    /// give an error, never a panic.
    pub fn decode(buf: &[u8]) -> Result<CatalogRecord, String> {
        let mut r = Reader::new(buf);
        let rec = match r.u8()? {
            TAG_SEQUENCES => {
                let n = r.u32()? as usize;
                let mut seqs = Vec::with_capacity(n.min(1 << 16));
                for _ in 0..n {
                    let name = get_str(&mut r)?;
                    let last = r.u64()? as i64;
                    seqs.push((name, last, get_bool(&mut r)?));
                }
                CatalogRecord::Sequences(seqs)
            }
            TAG_PUT_TABLE => CatalogRecord::PutTable(Box::new(TableRecord::decode(&mut r)?)),
            TAG_DROP_TABLE => CatalogRecord::DropTable {
                name: get_str(&mut r)?,
            },
            TAG_PUT_VIEW => {
                let oid = RelId(r.u32()?);
                let rule_oid = RelId(r.u32()?);
                let name = get_str(&mut r)?;
                let query = get_str(&mut r)?;
                let n = r.u32()? as usize;
                let mut columns = Vec::with_capacity(n.min(1 << 12));
                for _ in 0..n {
                    let c = get_str(&mut r)?;
                    let ty = get_type(&mut r, "view column")?;
                    columns.push((c, ty));
                }
                let n = r.u32()? as usize;
                let mut depends_on = Vec::with_capacity(n.min(1 << 12));
                for _ in 0..n {
                    depends_on.push(RelId(r.u32()?));
                }
                // Check option (bits 0-1), security_invoker (bit 2),
                // security_barrier (bit 3).
                let flags = if r.at_end() { 0 } else { r.u8()? };
                if flags > 0x0F {
                    return Err(format!("view flags {flags}"));
                }
                let check_option = match flags & 3 {
                    0 => ViewCheckOption::None,
                    1 => ViewCheckOption::Local,
                    2 => ViewCheckOption::Cascaded,
                    x => return Err(format!("view check option {x}")),
                };
                let rules = if r.at_end() {
                    Vec::new()
                } else {
                    get_rules(&mut r)?
                };
                let triggers = if r.at_end() {
                    Vec::new()
                } else {
                    get_triggers(&mut r)?
                };
                let defaults = if r.at_end() {
                    Vec::new()
                } else {
                    get_list(&mut r, |r| Ok((r.u32()? as usize, get_str(r)?)))?
                };
                let column_deps = if r.at_end() {
                    None
                } else {
                    Some(get_list(&mut r, |r| {
                        let rel = RelId(r.u32()?);
                        let cols = get_list(r, |r| Ok(r.u16()? as i16))?;
                        Ok((rel, cols))
                    })?)
                };
                CatalogRecord::PutView(ViewDef {
                    namespace: crate::PUBLIC_NAMESPACE_OID,
                    oid,
                    rule_oid,
                    name,
                    query,
                    columns,
                    depends_on,
                    temporary: false,
                    check_option,
                    security_invoker: flags & 4 != 0,
                    security_barrier: flags & 8 != 0,
                    rules,
                    triggers,
                    defaults,
                    column_deps,
                })
            }
            TAG_DROP_VIEW => CatalogRecord::DropView {
                name: get_str(&mut r)?,
            },
            TAG_COMMENT => {
                let key = (r.u32()?, r.u32()?, r.u32()? as i32);
                let text = if get_bool(&mut r)? {
                    Some(get_str(&mut r)?)
                } else {
                    None
                };
                CatalogRecord::Comment { key, text }
            }
            TAG_PUT_ROLE => {
                let mut role = RoleDef::new(RelId(r.u32()?), &get_str(&mut r)?);
                role.set_flags(r.u8()?);
                role.conn_limit = r.u32()? as i32;
                role.password = get_opt_str(&mut r)?;
                role.valid_until = if get_bool(&mut r)? {
                    Some(r.u64()? as i64)
                } else {
                    None
                };
                role.member_of = get_list(&mut r, |r| {
                    Ok(Membership {
                        role: RelId(r.u32()?),
                        grantor: RelId(r.u32()?),
                        admin: get_bool(r)?,
                    })
                })?;
                CatalogRecord::PutRole(role)
            }
            TAG_DROP_ROLE => CatalogRecord::DropRole {
                name: get_str(&mut r)?,
            },
            TAG_PUT_ENUM => CatalogRecord::PutEnum(get_enum(&mut r)?),
            TAG_DROP_ENUM => CatalogRecord::DropEnum {
                name: get_str(&mut r)?,
            },
            TAG_PUT_DOMAIN => CatalogRecord::PutDomain(get_domain(&mut r)?),
            TAG_DROP_DOMAIN => CatalogRecord::DropDomain {
                name: get_str(&mut r)?,
            },
            TAG_PUT_COMPOSITE => CatalogRecord::PutComposite(get_composite(&mut r)?),
            TAG_DROP_COMPOSITE => CatalogRecord::DropComposite {
                name: get_str(&mut r)?,
            },
            TAG_PUT_CAST => CatalogRecord::PutCast(get_cast(&mut r)?),
            TAG_PUT_OPFAMILY => CatalogRecord::PutOpFamily(OpFamilyDef {
                oid: r.u32()?,
                name: get_str(&mut r)?,
                am: get_am(&mut r)?,
                owner: r.u32()?,
            }),
            TAG_DROP_OPFAMILY => CatalogRecord::DropOpFamily { oid: r.u32()? },
            TAG_PUT_OPCLASS => CatalogRecord::PutOpClass(get_opclass(&mut r)?),
            TAG_DROP_OPCLASS => CatalogRecord::DropOpClass { oid: r.u32()? },
            TAG_DROP_CAST => CatalogRecord::DropCast {
                source: r.u32()?,
                target: r.u32()?,
            },
            TAG_SET_ROLE_SETTINGS => {
                let key = (r.u32()?, r.u32()?);
                let config = if get_bool(&mut r)? {
                    Some(get_list(&mut r, |r| Ok((get_str(r)?, get_str(r)?)))?)
                } else {
                    None
                };
                CatalogRecord::SetRoleSettings { key, config }
            }
            TAG_SET_EXTENSION => {
                let name = get_str(&mut r)?;
                let ext = if get_bool(&mut r)? {
                    Some(crate::defs::ExtensionDef {
                        oid: RelId(r.u32()?),
                        version: get_str(&mut r)?,
                    })
                } else {
                    None
                };
                CatalogRecord::SetExtension { name, ext }
            }
            TAG_SET_DEFAULT_ACL => {
                let key = (r.u32()?, r.u32()?, r.u8()?);
                let acl = if get_bool(&mut r)? {
                    Some(get_acl_items(&mut r)?)
                } else {
                    None
                };
                CatalogRecord::SetDefaultAcl { key, acl }
            }
            TAG_SET_ACL => {
                let key = (r.u32()?, r.u32()?);
                let acl = if get_bool(&mut r)? {
                    let owner = RelId(r.u32()?);
                    let acl = if get_bool(&mut r)? {
                        Some(get_acl_items(&mut r)?)
                    } else {
                        None
                    };
                    let mut cols = Vec::new();
                    if !r.at_end() {
                        for _ in 0..r.u32()? {
                            let attnum = r.u32()? as i16;
                            cols.push((attnum, get_acl_items(&mut r)?));
                        }
                    }
                    Some(ObjAcl { owner, acl, cols })
                } else {
                    None
                };
                CatalogRecord::SetAcl { key, acl }
            }
            TAG_RENAME_TABLE => CatalogRecord::RenameTable {
                from: get_str(&mut r)?,
                to: get_str(&mut r)?,
            },
            TAG_PUT_SEQUENCE => CatalogRecord::PutSequence(SequenceRecord::decode(&mut r)?),
            TAG_DROP_SEQUENCE => CatalogRecord::DropSequence {
                name: get_str(&mut r)?,
            },
            TAG_PUT_FUNCTION => CatalogRecord::PutFunction(FunctionRecord::decode(&mut r)?),
            TAG_PUT_AGGREGATE => {
                let mut f = FunctionRecord::decode(&mut r)?;
                f.aggregate = Some(decode_aggregate(&mut r)?);
                CatalogRecord::PutFunction(f)
            }
            TAG_DROP_FUNCTION => CatalogRecord::DropFunction {
                name: get_str(&mut r)?,
                oid: RelId(r.u32()?),
            },
            TAG_PUT_SCHEMA => CatalogRecord::PutSchema(crate::SchemaDef {
                oid: RelId(r.u32()?),
                name: get_str(&mut r)?,
            }),
            TAG_DROP_SCHEMA => CatalogRecord::DropSchema {
                oid: RelId(r.u32()?),
            },
            TAG_IN_SCHEMA => {
                let namespace = r.u32()?;
                let rest = r.bytes(buf.len() - 5)?;
                let record = CatalogRecord::decode(rest)?;
                if matches!(record, CatalogRecord::InSchema { .. }) {
                    return Err("nested InSchema record".into());
                }
                CatalogRecord::InSchema {
                    namespace,
                    record: Box::new(record),
                }
            }
            TAG_PUT_DATABASE => {
                let oid = RelId(r.u32()?);
                let name = get_str(&mut r)?;
                let owner = RelId(r.u32()?);
                let flags = r.u8()?;
                let conn_limit = r.u32()? as i32;
                CatalogRecord::PutDatabase(crate::DatabaseDef {
                    oid,
                    name,
                    owner,
                    is_template: flags & 1 != 0,
                    allow_conn: flags & 2 != 0,
                    conn_limit,
                })
            }
            TAG_DROP_DATABASE => CatalogRecord::DropDatabase {
                oid: RelId(r.u32()?),
            },
            TAG_IN_DATABASE => {
                let database = r.u32()?;
                let rest = r.bytes(buf.len() - 5)?;
                let record = CatalogRecord::decode(rest)?;
                if matches!(
                    record,
                    CatalogRecord::InDatabase { .. } | CatalogRecord::Batch(_)
                ) {
                    return Err("nested InDatabase record".into());
                }
                CatalogRecord::InDatabase {
                    database,
                    record: Box::new(record),
                }
            }
            TAG_BATCH => {
                let n = r.u32()?;
                let mut records = Vec::new();
                for _ in 0..n {
                    let len = r.u32()? as usize;
                    let record = CatalogRecord::decode(r.bytes(len)?)?;
                    if matches!(record, CatalogRecord::Batch(_)) {
                        return Err("nested Batch record".into());
                    }
                    records.push(record);
                }
                CatalogRecord::Batch(records)
            }
            TAG_LEGACY_STATEMENT => {
                return Err(
                    "a schema change logged as SQL text by an older Nestor version \
                            (this version replays typed catalog records only)"
                        .into(),
                )
            }
            t => return Err(format!("unknown catalog record {t}")),
        };
        if !r.at_end() {
            return Err("trailing bytes after catalog record".into());
        }
        Ok(rec)
    }
}

fn put_triggers(out: &mut Vec<u8>, triggers: &[TriggerDef]) {
    put_u32(out, triggers.len());
    for t in triggers {
        out.extend_from_slice(&t.oid.0.to_le_bytes());
        put_str(out, &t.name);
        let timing = match t.timing {
            TriggerTiming::Before => 0,
            TriggerTiming::After => 1,
            TriggerTiming::Instead => 2,
        };
        // The timing byte carries the enabled state in ENABLED_MASK (0:
        // origin, as in records written before it was kept) and a clone's
        // CLONE_FLAG, its parent's OID following, and TRANSITION_FLAG
        // when it has transition tables (their names after the args).
        let enabled = match t.enabled {
            TriggerEnabled::Origin => 0,
            TriggerEnabled::Disabled => 1,
            TriggerEnabled::Replica => 2,
            TriggerEnabled::Always => 3,
        } << ENABLED_SHIFT;
        let transition = if t.has_transition() {
            TRANSITION_FLAG
        } else {
            0
        };
        match t.parent {
            None => out.push(timing | enabled | transition),
            Some(p) => {
                out.push(timing | enabled | transition | CLONE_FLAG);
                out.extend_from_slice(&p.0.to_le_bytes());
            }
        }
        out.push(t.events);
        put_u32(out, t.columns.len());
        for c in &t.columns {
            put_str(out, c);
        }
        out.push(t.row as u8);
        put_opt_str(out, t.when.as_deref());
        out.extend_from_slice(&t.function.0.to_le_bytes());
        put_u32(out, t.args.len());
        for a in &t.args {
            put_str(out, a);
        }
        if t.has_transition() {
            put_opt_str(out, t.old_table.as_deref());
            put_opt_str(out, t.new_table.as_deref());
        }
    }
}

/// Set in a trigger's timing byte when it is a clone (its parent's OID
/// follows).
const CLONE_FLAG: u8 = 0x80;
/// The enabled state's two bits in a trigger's timing byte.
const ENABLED_SHIFT: u8 = 4;
const ENABLED_MASK: u8 = 0x30;
/// Set in a trigger's timing byte when it has transition tables (the
/// OLD and NEW TABLE names follow its arguments).
const TRANSITION_FLAG: u8 = 0x40;

fn get_triggers(r: &mut Reader<'_>) -> Result<Vec<TriggerDef>, String> {
    get_list(r, |r| {
        let oid = RelId(r.u32()?);
        let name = get_str(r)?;
        let byte = r.u8()?;
        let enabled = match (byte & ENABLED_MASK) >> ENABLED_SHIFT {
            0 => TriggerEnabled::Origin,
            1 => TriggerEnabled::Disabled,
            2 => TriggerEnabled::Replica,
            _ => TriggerEnabled::Always,
        };
        let timing = match byte & !(CLONE_FLAG | ENABLED_MASK | TRANSITION_FLAG) {
            0 => TriggerTiming::Before,
            1 => TriggerTiming::After,
            2 => TriggerTiming::Instead,
            t => return Err(format!("bad trigger timing {t}")),
        };
        let parent = if byte & CLONE_FLAG != 0 {
            Some(RelId(r.u32()?))
        } else {
            None
        };
        let mut t = TriggerDef {
            oid,
            name,
            timing,
            parent,
            enabled,
            events: r.u8()?,
            columns: get_list(r, get_str)?,
            row: get_bool(r)?,
            when: get_opt_str(r)?,
            function: RelId(r.u32()?),
            args: get_list(r, get_str)?,
            old_table: None,
            new_table: None,
        };
        if byte & TRANSITION_FLAG != 0 {
            t.old_table = get_opt_str(r)?;
            t.new_table = get_opt_str(r)?;
        }
        Ok(t)
    })
}

fn put_rules(out: &mut Vec<u8>, rules: &[RuleDef]) {
    put_u32(out, rules.len());
    for rule in rules {
        out.extend_from_slice(&rule.oid.0.to_le_bytes());
        put_str(out, &rule.name);
        out.push(rule.event.code());
        out.push(u8::from(rule.instead));
        put_opt_str(out, rule.qual.as_deref());
        put_u32(out, rule.actions.len());
        for a in &rule.actions {
            put_str(out, a);
        }
    }
}

fn put_row_security(out: &mut Vec<u8>, rls: &RowSecurity) {
    out.push(u8::from(rls.enabled) | u8::from(rls.forced) << 1);
    put_u32(out, rls.policies.len());
    for p in &rls.policies {
        out.extend_from_slice(&p.oid.0.to_le_bytes());
        put_str(out, &p.name);
        out.push(p.cmd.code());
        out.push(u8::from(p.permissive));
        put_u32(out, p.roles.len());
        for r in &p.roles {
            out.extend_from_slice(&r.to_le_bytes());
        }
        put_opt_str(out, p.qual.as_deref());
        put_opt_str(out, p.check.as_deref());
    }
}

fn get_row_security(r: &mut Reader<'_>) -> Result<RowSecurity, String> {
    let flags = r.u8()?;
    let policies = get_list(r, |r| {
        let oid = RelId(r.u32()?);
        let name = get_str(r)?;
        let code = r.u8()?;
        let cmd = PolicyCmd::of_code(code).ok_or_else(|| format!("policy command {code}"))?;
        Ok(PolicyDef {
            oid,
            name,
            cmd,
            permissive: get_bool(r)?,
            roles: get_list(r, |r| r.u32())?,
            qual: get_opt_str(r)?,
            check: get_opt_str(r)?,
        })
    })?;
    Ok(RowSecurity {
        enabled: flags & 1 != 0,
        forced: flags & 2 != 0,
        policies,
    })
}

fn get_rules(r: &mut Reader<'_>) -> Result<Vec<RuleDef>, String> {
    get_list(r, |r| {
        let oid = RelId(r.u32()?);
        let name = get_str(r)?;
        let code = r.u8()?;
        let event = RuleEvent::of_code(code).ok_or_else(|| format!("rule event {code}"))?;
        let instead = get_bool(r)?;
        let qual = get_opt_str(r)?;
        let actions = get_list(r, get_str)?;
        Ok(RuleDef {
            oid,
            name,
            event,
            instead,
            qual,
            actions,
        })
    })
}

impl TableRecord {
    fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.oid.0.to_le_bytes());
        out.extend_from_slice(&self.storage.0.to_le_bytes());
        put_str(out, &self.name);
        out.push(persistence_code(self.persistence));
        put_u32(out, self.base_width);
        put_u32(out, self.columns.len());
        for c in &self.columns {
            c.encode(out);
        }
        put_u32(out, self.checks.len());
        for (name, expr) in &self.checks {
            put_str(out, name);
            put_str(out, expr);
        }
        put_u32(out, self.indexes.len());
        for i in &self.indexes {
            i.encode(out);
        }
        put_u32(out, self.owned_sequences.len());
        for s in &self.owned_sequences {
            put_str(out, s);
        }
        put_triggers(out, &self.triggers);
        put_u32(out, self.foreign_keys.len());
        for fk in &self.foreign_keys {
            out.extend_from_slice(&fk.oid.0.to_le_bytes());
            put_str(out, &fk.name);
            put_u32(out, fk.columns.len());
            for c in &fk.columns {
                put_u32(out, *c);
            }
            out.extend_from_slice(&fk.parent.0.to_le_bytes());
            put_u32(out, fk.parent_columns.len());
            for c in &fk.parent_columns {
                put_u32(out, *c);
            }
            out.push(fk.on_delete.code());
            out.push(fk.on_update.code());
            out.push(fk.deferrable as u8 | (fk.deferred as u8) << 1 | (fk.match_full as u8) << 2);
        }
        put_u32(out, self.identities.len());
        for i in &self.identities {
            put_u32(out, i.column);
            out.push(i.always as u8);
        }
        match &self.matview {
            None => out.push(0),
            Some(m) => {
                out.push(1);
                put_str(out, &m.query);
                out.push(u8::from(m.populated));
                out.extend_from_slice(&m.rule_oid.0.to_le_bytes());
                put_u32(out, m.depends_on.len());
                for d in &m.depends_on {
                    out.extend_from_slice(&d.0.to_le_bytes());
                }
            }
        }
        put_u32(out, self.not_valid.len());
        for n in &self.not_valid {
            put_str(out, n);
        }
        put_u32(out, self.inherits.len());
        for p in &self.inherits {
            out.extend_from_slice(&p.0.to_le_bytes());
        }
        let partitioned = self.partition_key.is_some() || self.partition_bound.is_some();
        let rls = !self.row_security.is_default();
        if partitioned || !self.rules.is_empty() || rls {
            put_partition_key(out, self.partition_key.as_ref());
            put_partition_bound(out, self.partition_bound.as_ref());
        }
        if !self.rules.is_empty() || rls {
            put_rules(out, &self.rules);
        }
        if rls {
            put_row_security(out, &self.row_security);
        }
    }

    fn decode(r: &mut Reader<'_>) -> Result<TableRecord, String> {
        let oid = RelId(r.u32()?);
        let storage = RelId(r.u32()?);
        let name = get_str(r)?;
        let persistence = persistence_of(r.u8()?)?;
        let base_width = r.u32()? as usize;
        let columns = get_list(r, ColumnRecord::decode)?;
        let checks = get_list(r, |r| Ok((get_str(r)?, get_str(r)?)))?;
        let indexes = get_list(r, IndexRecord::decode)?;
        let owned_sequences = get_list(r, get_str)?;
        // Records written before triggers existed end here.
        let triggers = if r.at_end() {
            Vec::new()
        } else {
            get_triggers(r)?
        };
        // Records written before foreign keys existed end here.
        let foreign_keys = if r.at_end() {
            Vec::new()
        } else {
            get_list(r, |r| {
                let oid = RelId(r.u32()?);
                let name = get_str(r)?;
                let columns = get_list(r, |r| Ok(r.u32()? as usize))?;
                let parent = RelId(r.u32()?);
                let parent_columns = get_list(r, |r| Ok(r.u32()? as usize))?;
                let action =
                    |c: u8| FkAction::from_code(c).ok_or(format!("bad foreign key action {c}"));
                let on_delete = action(r.u8()?)?;
                let on_update = action(r.u8()?)?;
                let flags = r.u8()?;
                if columns.len() != parent_columns.len() || columns.is_empty() {
                    return Err(format!("foreign key {name}: column lists disagree"));
                }
                Ok(ForeignKey {
                    oid,
                    name,
                    columns,
                    parent,
                    parent_columns,
                    on_delete,
                    on_update,
                    deferrable: flags & 1 != 0,
                    deferred: flags & 2 != 0,
                    match_full: flags & 4 != 0,
                })
            })?
        };
        // Records written before identity columns existed end here.
        let identities = if r.at_end() {
            Vec::new()
        } else {
            get_list(r, |r| {
                Ok(Identity {
                    column: r.u32()? as usize,
                    always: get_bool(r)?,
                })
            })?
        };
        // Records written before materialized views existed end here.
        let matview = if r.at_end() || !get_bool(r)? {
            None
        } else {
            Some(MatView {
                query: get_str(r)?,
                populated: get_bool(r)?,
                rule_oid: RelId(r.u32()?),
                depends_on: get_list(r, |r| Ok(RelId(r.u32()?)))?,
            })
        };
        // Records written before NOT VALID constraints existed end here.
        let not_valid = if r.at_end() {
            Vec::new()
        } else {
            get_list(r, get_str)?
        };
        // Records written before table inheritance existed end here.
        let inherits = if r.at_end() {
            Vec::new()
        } else {
            get_list(r, |r| Ok(RelId(r.u32()?)))?
        };
        // Records written before declarative partitioning end here.
        let (partition_key, partition_bound) = if r.at_end() {
            (None, None)
        } else {
            (get_partition_key(r)?, get_partition_bound(r)?)
        };
        // And those written before rules here.
        let rules = if r.at_end() {
            Vec::new()
        } else {
            get_rules(r)?
        };
        // And those written before row-level security here.
        let row_security = if r.at_end() {
            RowSecurity::default()
        } else {
            get_row_security(r)?
        };
        if partition_key.as_ref().is_some_and(|k| {
            k.parts.iter().any(|p| match p {
                KeyPart::Column(c) => *c >= columns.len(),
                KeyPart::Expr(e) => e.columns.iter().any(|&c| c >= columns.len()),
            })
        }) {
            return Err(format!("table {name}: partition key beyond its columns"));
        }
        if base_width > columns.len() {
            return Err(format!("table {name}: base width beyond its columns"));
        }
        if identities.iter().any(|i| i.column >= columns.len()) {
            return Err(format!("table {name}: identity beyond its columns"));
        }
        if foreign_keys
            .iter()
            .any(|fk| fk.columns.iter().any(|&c| c >= columns.len()))
        {
            return Err(format!("table {name}: foreign key beyond its columns"));
        }
        Ok(TableRecord {
            oid,
            storage,
            name,
            persistence,
            base_width,
            columns,
            checks,
            indexes,
            owned_sequences,
            triggers,
            rules,
            row_security,
            foreign_keys,
            identities,
            matview,
            not_valid,
            inherits,
            partition_key,
            partition_bound,
        })
    }
}

fn put_partition_key(out: &mut Vec<u8>, k: Option<&PartitionKey>) {
    let Some(k) = k else {
        out.push(0);
        return;
    };
    out.push(1);
    let plain = k.is_plain()
        && k.collations.iter().all(Option::is_none)
        && k.opclasses.iter().all(Option::is_none);
    if plain {
        // The first form: columns only.
        out.push(k.strategy.letter() as u8);
        put_u32(out, k.parts.len());
        for p in &k.parts {
            if let KeyPart::Column(c) = p {
                put_u32(out, *c);
            }
        }
        return;
    }
    out.push(k.strategy.letter().to_ascii_uppercase() as u8);
    put_u32(out, k.parts.len());
    for (i, (p, coll)) in k.parts.iter().zip(&k.collations).enumerate() {
        let opclass = k.opclasses.get(i).copied().flatten();
        // Tags 2 and 3: the element names a user operator class.
        let tag = if opclass.is_some() { 2 } else { 0 };
        match p {
            KeyPart::Column(c) => {
                out.push(tag);
                put_u32(out, *c);
            }
            KeyPart::Expr(e) => {
                out.push(tag + 1);
                put_str(out, &e.sql);
                put_type(out, e.ty);
                put_u32(out, e.columns.len());
                for &c in &e.columns {
                    put_u32(out, c);
                }
            }
        }
        put_opt_str(out, coll.as_deref());
        if let Some(oc) = opclass {
            out.extend_from_slice(&oc.to_le_bytes());
        }
    }
}

fn get_partition_key(r: &mut Reader<'_>) -> Result<Option<PartitionKey>, String> {
    if !get_bool(r)? {
        return Ok(None);
    }
    let s = r.u8()?;
    let bad = || format!("bad partition strategy {s}");
    if let Some(strategy) = PartStrategy::from_letter(s) {
        let columns = get_list(r, |r| Ok(r.u32()? as usize))?;
        return Ok(Some(PartitionKey::of_columns(strategy, columns)));
    }
    let strategy = PartStrategy::from_letter(s.to_ascii_lowercase()).ok_or_else(bad)?;
    let elems = get_list(r, |r| {
        let tag = r.u8()?;
        let part = match tag & !2 {
            0 if tag <= 3 => KeyPart::Column(r.u32()? as usize),
            1 if tag <= 3 => KeyPart::Expr(KeyExpr {
                sql: get_str(r)?,
                ty: get_type(r, "partition key expression")?,
                columns: get_list(r, |r| Ok(r.u32()? as usize))?,
            }),
            _ => return Err(format!("bad partition key element {tag}")),
        };
        let coll = get_opt_str(r)?;
        let opclass = if tag & 2 != 0 { Some(r.u32()?) } else { None };
        Ok((part, coll, opclass))
    })?;
    let mut parts = Vec::with_capacity(elems.len());
    let mut collations = Vec::with_capacity(elems.len());
    let mut opclasses = Vec::with_capacity(elems.len());
    for (p, c, o) in elems {
        parts.push(p);
        collations.push(c);
        opclasses.push(o);
    }
    Ok(Some(PartitionKey {
        strategy,
        parts,
        collations,
        opclasses,
    }))
}

fn put_range(out: &mut Vec<u8>, b: &[RangeDatum]) {
    put_u32(out, b.len());
    for d in b {
        match d {
            RangeDatum::MinValue => out.push(0),
            RangeDatum::Value(v) => {
                out.push(1);
                encode_value(v, out);
            }
            RangeDatum::MaxValue => out.push(2),
        }
    }
}

fn get_range(r: &mut Reader<'_>) -> Result<Vec<RangeDatum>, String> {
    get_list(r, |r| match r.u8()? {
        0 => Ok(RangeDatum::MinValue),
        1 => Ok(RangeDatum::Value(r.value()?)),
        2 => Ok(RangeDatum::MaxValue),
        t => Err(format!("bad range datum {t}")),
    })
}

fn put_partition_bound(out: &mut Vec<u8>, b: Option<&PartitionBound>) {
    let Some(b) = b else {
        out.push(0);
        return;
    };
    out.push(1);
    match b {
        PartitionBound::Default => out.push(0),
        PartitionBound::List(vals) => {
            out.push(1);
            put_u32(out, vals.len());
            for v in vals {
                encode_value(v, out);
            }
        }
        PartitionBound::Range { from, to } => {
            out.push(2);
            put_range(out, from);
            put_range(out, to);
        }
        PartitionBound::Hash { modulus, remainder } => {
            out.push(3);
            out.extend_from_slice(&modulus.to_le_bytes());
            out.extend_from_slice(&remainder.to_le_bytes());
        }
    }
}

fn get_partition_bound(r: &mut Reader<'_>) -> Result<Option<PartitionBound>, String> {
    if !get_bool(r)? {
        return Ok(None);
    }
    Ok(Some(match r.u8()? {
        0 => PartitionBound::Default,
        1 => PartitionBound::List(get_list(r, |r| r.value())?),
        2 => PartitionBound::Range {
            from: get_range(r)?,
            to: get_range(r)?,
        },
        3 => PartitionBound::Hash {
            modulus: r.u32()?,
            remainder: r.u32()?,
        },
        t => return Err(format!("bad partition bound {t}")),
    }))
}

impl ColumnRecord {
    fn encode(&self, out: &mut Vec<u8>) {
        put_str(out, &self.name);
        match self.domain {
            Some(d) => {
                out.extend_from_slice(&d.to_le_bytes());
                out.extend_from_slice(&(-1i32).to_le_bytes());
            }
            None => {
                out.extend_from_slice(&self.ty.oid().to_le_bytes());
                out.extend_from_slice(&self.ty.typmod().to_le_bytes());
            }
        }
        let tuned = self.storage != 0 || self.compression != 0;
        out.push(
            self.not_null as u8
                | (self.dropped as u8) << 1
                | (self.generated as u8) << 2
                | (tuned as u8) << 3,
        );
        put_opt_str(out, self.default.as_deref());
        encode_value(&self.missing, out);
        if tuned {
            out.push(self.storage);
            out.push(self.compression);
        }
    }

    fn decode(r: &mut Reader<'_>) -> Result<ColumnRecord, String> {
        let name = get_str(r)?;
        let (oid, typmod) = (r.u32()?, r.u32()? as i32);
        // A domain's record comes before the tables using it (checkpoint
        // order; in the log, its creation precedes them).
        let domain = nestor_types::domains::lookup(oid)
            .or_else(|| nestor_types::domains::lookup_array(oid))
            .map(|_| oid);
        let ty = DataType::from_oid_typmod(oid, typmod)
            .ok_or_else(|| format!("column {name}: unknown type oid {oid}"))?;
        let flags = r.u8()?;
        let default = get_opt_str(r)?;
        let missing = r.value()?;
        let (storage, compression) = if flags & 8 != 0 {
            (r.u8()?, r.u8()?)
        } else {
            (0, 0)
        };
        Ok(ColumnRecord {
            name,
            ty,
            domain,
            not_null: flags & 1 != 0,
            dropped: flags & 2 != 0,
            generated: flags & 4 != 0,
            default,
            missing,
            storage,
            compression,
        })
    }
}

impl IndexRecord {
    fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.oid.0.to_le_bytes());
        put_str(out, &self.name);
        put_u32(out, self.columns.len());
        for c in &self.columns {
            put_u32(out, *c);
        }
        let computed = self.exprs.is_some();
        out.push(
            self.unique as u8
                | (self.primary as u8) << 1
                | (self.constraint as u8) << 2
                | (computed as u8) << 3
                | (self.nulls_not_distinct as u8) << 4
                | (self.hash as u8) << 5
                | (self.gin as u8) << 6
                | (!self.keyopts.is_empty() as u8) << 7,
        );
        if let Some(x) = &self.exprs {
            put_u32(out, x.keys.len());
            for k in &x.keys {
                match k {
                    IndexKey::Column(c) => {
                        out.push(0);
                        put_u32(out, *c);
                    }
                    IndexKey::Expr(e) => {
                        out.push(1);
                        put_str(out, e);
                    }
                }
            }
            put_opt_str(out, x.predicate.as_deref());
            if self.gin {
                put_u32(out, x.gin.len());
                out.extend(x.gin.iter().map(|c| c.code()));
                put_u32(out, x.options.len());
                for (k, v) in &x.options {
                    put_str(out, k);
                    put_str(out, v);
                }
            }
        }
        if !self.keyopts.is_empty() {
            put_u32(out, self.keyopts.len());
            for o in &self.keyopts {
                out.push(o.desc as u8 | (o.nulls_first as u8) << 1);
                put_opt_str(out, o.collation.as_deref());
                put_opt_str(out, o.opclass.as_deref());
                put_u32(out, o.opclass_options.len());
                for (k, v) in &o.opclass_options {
                    put_str(out, k);
                    put_str(out, v);
                }
            }
        }
    }

    fn decode(r: &mut Reader<'_>) -> Result<IndexRecord, String> {
        let oid = RelId(r.u32()?);
        let name = get_str(r)?;
        let columns = get_list(r, |r| Ok(r.u32()? as usize))?;
        let flags = r.u8()?;
        let exprs = if flags & 8 != 0 {
            let keys = get_list(r, |r| match r.u8()? {
                0 => Ok(IndexKey::Column(r.u32()? as usize)),
                1 => Ok(IndexKey::Expr(get_str(r)?)),
                t => Err(format!("index {name}: bad key kind {t}")),
            })?;
            if keys.is_empty() || !columns.is_empty() {
                return Err(format!("index {name}: bad computed keys"));
            }
            let predicate = get_opt_str(r)?;
            let (gin, options) = if flags & 64 != 0 {
                let gin = get_list(r, |r| {
                    let c = r.u8()?;
                    crate::gin::GinClass::from_code(c)
                        .ok_or_else(|| format!("index {name}: bad gin class {c}"))
                })?;
                if gin.len() != keys.len() {
                    return Err(format!("index {name}: gin classes do not match its keys"));
                }
                (gin, get_list(r, |r| Ok((get_str(r)?, get_str(r)?)))?)
            } else {
                (Vec::new(), Vec::new())
            };
            Some(IndexExprs {
                keys,
                predicate,
                gin,
                options,
            })
        } else {
            None
        };
        if columns.is_empty() && exprs.is_none() {
            return Err(format!("index {name} without key columns"));
        }
        if flags & 64 != 0 && exprs.is_none() {
            return Err(format!("index {name}: gin without computed keys"));
        }
        let keyopts = if flags & 128 != 0 {
            get_list(r, |r| {
                let order = r.u8()?;
                Ok(IndexKeyOpt {
                    desc: order & 1 != 0,
                    nulls_first: order & 2 != 0,
                    collation: get_opt_str(r)?,
                    opclass: get_opt_str(r)?,
                    opclass_options: get_list(r, |r| Ok((get_str(r)?, get_str(r)?)))?,
                })
            })?
        } else {
            Vec::new()
        };
        let nkeys = exprs.as_ref().map_or(columns.len(), |x| x.keys.len());
        if !keyopts.is_empty() && keyopts.len() != nkeys {
            return Err(format!("index {name}: key options do not match its keys"));
        }
        Ok(IndexRecord {
            oid,
            name,
            columns,
            unique: flags & 1 != 0,
            primary: flags & 2 != 0,
            constraint: flags & 4 != 0,
            exprs,
            nulls_not_distinct: flags & 16 != 0,
            hash: flags & 32 != 0,
            gin: flags & 64 != 0,
            keyopts,
        })
    }
}

fn put_type(out: &mut Vec<u8>, ty: DataType) {
    out.extend_from_slice(&ty.oid().to_le_bytes());
    out.extend_from_slice(&ty.typmod().to_le_bytes());
}

fn get_type(r: &mut Reader<'_>, what: &str) -> Result<DataType, String> {
    let (oid, typmod) = (r.u32()?, r.u32()? as i32);
    type_of(oid, typmod).ok_or_else(|| format!("{what}: unknown type oid {oid}"))
}

/// A stored type: a value type, or a polymorphic pseudo-type (only a
/// function's signature holds one).
fn type_of(oid: u32, typmod: i32) -> Option<DataType> {
    DataType::from_oid_typmod(oid, typmod)
        .or_else(|| nestor_types::datatype::Poly::from_oid(oid).map(DataType::Poly))
}

impl FunctionRecord {
    fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.oid.0.to_le_bytes());
        put_str(out, &self.name);
        out.push(self.procedure as u8);
        put_u32(out, self.args.len());
        for a in &self.args {
            put_str(out, &a.name);
            match a.domain {
                Some(d) => {
                    out.extend_from_slice(&d.to_le_bytes());
                    out.extend_from_slice(&(-1i32).to_le_bytes());
                }
                None => put_type(out, a.ty),
            }
            out.push(a.mode.code());
            put_opt_str(out, a.default.as_deref());
        }
        match &self.returns {
            Returns::Scalar(_) if self.result_domain.is_some() => {
                out.push(5);
                put_u32(out, self.result_domain.unwrap_or(0) as usize);
            }
            Returns::Scalar(t) => {
                out.push(0);
                put_type(out, *t);
            }
            Returns::Row(cols) => {
                out.push(1);
                put_u32(out, cols.len());
                for (n, t) in cols {
                    put_str(out, n);
                    put_type(out, *t);
                }
            }
            Returns::Trigger => out.push(2),
            Returns::Record => out.push(3),
            Returns::RowType(rel) => {
                out.push(4);
                put_u32(out, rel.0 as usize);
            }
        }
        out.push(self.retset as u8);
        out.push(match self.language {
            Language::Sql => 0,
            Language::PlPgSql => 1,
        });
        out.push(self.volatility.code() as u8);
        out.push(self.strict as u8);
        put_str(out, &self.body);
    }

    fn decode(r: &mut Reader<'_>) -> Result<FunctionRecord, String> {
        let oid = RelId(r.u32()?);
        let name = get_str(r)?;
        let procedure = get_bool(r)?;
        let args = get_list(r, |r| {
            let name = get_str(r)?;
            let (oid, typmod) = (r.u32()?, r.u32()? as i32);
            let domain = nestor_types::domains::lookup(oid);
            let ty = match &domain {
                Some(d) => d.base,
                None => type_of(oid, typmod)
                    .ok_or_else(|| format!("function argument: unknown type oid {oid}"))?,
            };
            let mode = ArgMode::from_code(r.u8()?).ok_or("bad argument mode")?;
            Ok(FuncArg {
                name,
                ty,
                domain: domain.map(|d| d.oid),
                mode,
                default: get_opt_str(r)?,
            })
        })?;
        let mut result_domain = None;
        let returns = match r.u8()? {
            0 => Returns::Scalar(get_type(r, "function result")?),
            5 => {
                let oid = r.u32()?;
                let d = nestor_types::domains::lookup(oid)
                    .ok_or_else(|| format!("function {name}: unknown result domain {oid}"))?;
                result_domain = Some(d.oid);
                Returns::Scalar(d.base)
            }
            1 => Returns::Row(get_list(r, |r| {
                Ok((get_str(r)?, get_type(r, "function result column")?))
            })?),
            2 => Returns::Trigger,
            3 => Returns::Record,
            4 => Returns::RowType(RelId(r.u32()?)),
            t => return Err(format!("function {name}: bad result tag {t}")),
        };
        let retset = get_bool(r)?;
        let language = match r.u8()? {
            0 => Language::Sql,
            1 => Language::PlPgSql,
            t => return Err(format!("function {name}: bad language {t}")),
        };
        let volatility = match r.u8()? {
            b'i' => Volatility::Immutable,
            b's' => Volatility::Stable,
            b'v' => Volatility::Volatile,
            t => return Err(format!("function {name}: bad volatility {t}")),
        };
        let strict = get_bool(r)?;
        let body = get_str(r)?;
        Ok(FunctionRecord {
            oid,
            name,
            procedure,
            args,
            returns,
            retset,
            language,
            body,
            volatility,
            strict,
            aggregate: None,
            result_domain,
        })
    }
}

fn encode_aggregate(a: &AggregateSpec, out: &mut Vec<u8>) {
    put_str(out, &a.sfunc);
    put_type(out, a.stype);
    put_opt_str(out, a.finalfunc.as_deref());
    put_opt_str(out, a.initcond.as_deref());
    put_opt_str(out, a.combinefunc.as_deref());
    out.push(a.finalfunc_extra as u8);
}

fn decode_aggregate(r: &mut Reader<'_>) -> Result<AggregateSpec, String> {
    Ok(AggregateSpec {
        sfunc: get_str(r)?,
        stype: get_type(r, "aggregate state")?,
        finalfunc: get_opt_str(r)?,
        initcond: get_opt_str(r)?,
        combinefunc: get_opt_str(r)?,
        finalfunc_extra: get_bool(r)?,
    })
}

impl SequenceRecord {
    fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.oid.0.to_le_bytes());
        put_str(out, &self.name);
        for v in [self.increment, self.min, self.max, self.start] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.push(self.cycle as u8);
        match &self.owned_by {
            None => out.push(0),
            Some((t, c)) => {
                out.push(1);
                put_str(out, t);
                put_str(out, c);
            }
        }
        out.extend_from_slice(&self.last.to_le_bytes());
        out.push(self.called as u8);
        out.extend_from_slice(&self.type_oid.to_le_bytes());
        out.extend_from_slice(&self.cache.to_le_bytes());
    }

    fn decode(r: &mut Reader<'_>) -> Result<SequenceRecord, String> {
        let oid = RelId(r.u32()?);
        let name = get_str(r)?;
        let mut vals = [0i64; 4];
        for v in &mut vals {
            *v = r.u64()? as i64;
        }
        let cycle = get_bool(r)?;
        let owned_by = match r.u8()? {
            0 => None,
            1 => Some((get_str(r)?, get_str(r)?)),
            t => return Err(format!("sequence {name}: bad owner tag {t}")),
        };
        let last = r.u64()? as i64;
        let called = get_bool(r)?;
        // Records written before AS and CACHE were kept end here.
        let (type_oid, cache) = if r.at_end() {
            (0, 1)
        } else {
            (r.u32()?, r.u64()? as i64)
        };
        let [increment, min, max, start] = vals;
        Ok(SequenceRecord {
            oid,
            name,
            increment,
            min,
            max,
            start,
            cycle,
            owned_by,
            last,
            called,
            type_oid,
            cache,
        })
    }
}

fn persistence_code(p: Persistence) -> u8 {
    match p {
        Persistence::Permanent => 0,
        Persistence::Unlogged => 1,
        Persistence::Temporary => 2,
    }
}

fn persistence_of(b: u8) -> Result<Persistence, String> {
    Ok(match b {
        0 => Persistence::Permanent,
        1 => Persistence::Unlogged,
        2 => Persistence::Temporary,
        _ => return Err(format!("bad persistence {b}")),
    })
}

/// `n:u32 (grantee:u32 grantor:u32 privs:u16 grant:u16)*`.
fn put_acl_items(out: &mut Vec<u8>, items: &[AclItem]) {
    put_u32(out, items.len());
    for i in items {
        out.extend_from_slice(&i.grantee.to_le_bytes());
        out.extend_from_slice(&i.grantor.to_le_bytes());
        out.extend_from_slice(&i.privs.to_le_bytes());
        out.extend_from_slice(&i.grant_option.to_le_bytes());
    }
}

fn get_acl_items(r: &mut Reader<'_>) -> Result<Vec<AclItem>, String> {
    get_list(r, |r| {
        let grantee = r.u32()?;
        let grantor = r.u32()?;
        let privs = u16::from_le_bytes(r.bytes(2)?.try_into().expect("2 bytes"));
        let grant_option = u16::from_le_bytes(r.bytes(2)?.try_into().expect("2 bytes"));
        Ok(AclItem {
            grantee,
            grantor,
            privs,
            grant_option,
        })
    })
}

fn put_enum(out: &mut Vec<u8>, e: &EnumDef) {
    out.extend_from_slice(&e.oid.to_le_bytes());
    out.extend_from_slice(&e.array_oid.to_le_bytes());
    put_str(out, &e.name);
    out.extend_from_slice(&e.owner.to_le_bytes());
    put_u32(out, e.labels.len());
    for l in &e.labels {
        out.extend_from_slice(&l.oid.to_le_bytes());
        out.extend_from_slice(&l.sort_order.to_le_bytes());
        put_u32(out, l.rank.len());
        out.extend_from_slice(&l.rank);
        put_str(out, &l.label);
    }
}

fn get_enum(r: &mut Reader<'_>) -> Result<EnumDef, String> {
    let oid = r.u32()?;
    let array_oid = r.u32()?;
    let name = get_str(r)?;
    let owner = r.u32()?;
    let n = r.u32()? as usize;
    let mut labels: Vec<EnumLabel> = Vec::with_capacity(n.min(1 << 12));
    for _ in 0..n {
        let oid = r.u32()?;
        let sort_order = f32::from_bits(r.u32()?);
        let len = r.u32()? as usize;
        let rank = r.bytes(len)?.to_vec();
        let label = get_str(r)?;
        if labels
            .last()
            .is_some_and(|p| p.rank >= rank || p.sort_order >= sort_order)
        {
            return Err(format!("enum {name}: labels out of order"));
        }
        labels.push(EnumLabel {
            oid,
            sort_order,
            rank,
            label,
        });
    }
    Ok(EnumDef {
        oid,
        array_oid,
        name,
        owner,
        labels,
    })
}

fn put_domain(out: &mut Vec<u8>, d: &DomainDef) {
    out.extend_from_slice(&d.oid.to_le_bytes());
    out.extend_from_slice(&d.array_oid.to_le_bytes());
    put_str(out, &d.name);
    out.extend_from_slice(&d.owner.to_le_bytes());
    put_type(out, d.base);
    out.extend_from_slice(&d.parent.unwrap_or(0).to_le_bytes());
    out.push(u8::from(d.not_null));
    put_opt_str(out, d.default.as_deref());
    put_u32(out, d.checks.len());
    for c in &d.checks {
        out.extend_from_slice(&c.oid.to_le_bytes());
        put_str(out, &c.name);
        put_str(out, &c.expr);
        out.push(u8::from(c.validated));
    }
}

fn put_composite(out: &mut Vec<u8>, c: &CompositeDef) {
    out.extend_from_slice(&c.oid.to_le_bytes());
    out.extend_from_slice(&c.array_oid.to_le_bytes());
    out.extend_from_slice(&c.relid.to_le_bytes());
    put_str(out, &c.name);
    out.extend_from_slice(&c.owner.to_le_bytes());
    put_u32(out, c.attrs.len());
    for (i, (name, ty)) in c.attrs.iter().enumerate() {
        put_str(out, name);
        // An attribute of a domain: the domain's OID and typmod -1, as a
        // column's.
        match c.attr_domain(i) {
            Some(d) => {
                out.extend_from_slice(&d.to_le_bytes());
                out.extend_from_slice(&(-1i32).to_le_bytes());
            }
            None => put_type(out, *ty),
        }
    }
}

fn put_cast(out: &mut Vec<u8>, c: &CastDef) {
    out.extend_from_slice(&c.oid.to_le_bytes());
    out.extend_from_slice(&c.source.to_le_bytes());
    out.extend_from_slice(&c.target.to_le_bytes());
    out.push(crate::cast::context_letter(c.context) as u8);
    out.push(c.method.letter() as u8);
    if let CastMethod::Function { oid, name } = &c.method {
        out.extend_from_slice(&oid.to_le_bytes());
        put_str(out, name);
    }
}

fn get_cast(r: &mut Reader<'_>) -> Result<CastDef, String> {
    let oid = r.u32()?;
    let source = r.u32()?;
    let target = r.u32()?;
    let context = match r.u8()? {
        b'i' => Coercion::Implicit,
        b'a' => Coercion::Assignment,
        b'e' => Coercion::Explicit,
        other => return Err(format!("bad cast context {other}")),
    };
    let method = match r.u8()? {
        b'f' => CastMethod::Function {
            oid: r.u32()?,
            name: get_str(r)?,
        },
        b'i' => CastMethod::InOut,
        b'b' => CastMethod::Binary,
        other => return Err(format!("bad cast method {other}")),
    };
    Ok(CastDef {
        oid,
        source,
        target,
        method,
        context,
    })
}

fn get_am(r: &mut Reader<'_>) -> Result<AccessMethod, String> {
    let oid = r.u32()?;
    AccessMethod::from_oid(oid).ok_or_else(|| format!("bad access method {oid}"))
}

fn put_opclass(out: &mut Vec<u8>, c: &OpClassDef) {
    out.extend_from_slice(&c.oid.to_le_bytes());
    put_str(out, &c.name);
    for n in [c.am.oid(), c.family, c.intype] {
        out.extend_from_slice(&n.to_le_bytes());
    }
    out.push(u8::from(c.default));
    out.extend_from_slice(&c.owner.to_le_bytes());
    put_u32(out, c.operators.len());
    for m in &c.operators {
        out.extend_from_slice(&m.oid.to_le_bytes());
        out.extend_from_slice(&m.number.to_le_bytes());
        for n in [m.opr, m.left, m.right] {
            out.extend_from_slice(&n.to_le_bytes());
        }
    }
    put_u32(out, c.procs.len());
    for m in &c.procs {
        out.extend_from_slice(&m.oid.to_le_bytes());
        out.extend_from_slice(&m.number.to_le_bytes());
        out.extend_from_slice(&m.func.to_le_bytes());
        put_str(out, &m.name);
        out.extend_from_slice(&m.left.to_le_bytes());
        out.extend_from_slice(&m.right.to_le_bytes());
    }
}

fn get_i16(r: &mut Reader<'_>) -> Result<i16, String> {
    Ok(r.u16()? as i16)
}

fn get_opclass(r: &mut Reader<'_>) -> Result<OpClassDef, String> {
    Ok(OpClassDef {
        oid: r.u32()?,
        name: get_str(r)?,
        am: get_am(r)?,
        family: r.u32()?,
        intype: r.u32()?,
        default: get_bool(r)?,
        owner: r.u32()?,
        operators: get_list(r, |r| {
            Ok(OpMember {
                oid: r.u32()?,
                number: get_i16(r)?,
                opr: r.u32()?,
                left: r.u32()?,
                right: r.u32()?,
            })
        })?,
        procs: get_list(r, |r| {
            Ok(ProcMember {
                oid: r.u32()?,
                number: get_i16(r)?,
                func: r.u32()?,
                name: get_str(r)?,
                left: r.u32()?,
                right: r.u32()?,
            })
        })?,
    })
}

fn get_composite(r: &mut Reader<'_>) -> Result<CompositeDef, String> {
    let oid = r.u32()?;
    let array_oid = r.u32()?;
    let relid = r.u32()?;
    let name = get_str(r)?;
    let owner = r.u32()?;
    let mut domains = Vec::new();
    let attrs = get_list(r, |r| {
        let n = get_str(r)?;
        let (oid, typmod) = (r.u32()?, r.u32()? as i32);
        // A domain's record comes before the composites using it.
        let domain = nestor_types::domains::lookup(oid)
            .or_else(|| nestor_types::domains::lookup_array(oid))
            .map(|_| oid);
        domains.push(domain);
        let ty = type_of(oid, typmod).ok_or_else(|| format!("{n}: unknown type oid {oid}"))?;
        Ok((n, ty))
    })?;
    if domains.iter().all(Option::is_none) {
        domains.clear();
    }
    Ok(CompositeDef {
        oid,
        array_oid,
        relid,
        name,
        owner,
        attrs,
        domains,
    })
}

fn get_domain(r: &mut Reader<'_>) -> Result<DomainDef, String> {
    let oid = r.u32()?;
    let array_oid = r.u32()?;
    let name = get_str(r)?;
    let owner = r.u32()?;
    let base = get_type(r, &name)?;
    let parent = Some(r.u32()?).filter(|&p| p != 0);
    let not_null = get_bool(r)?;
    let default = get_opt_str(r)?;
    let checks = get_list(r, |r| {
        Ok(DomainCheck {
            oid: r.u32()?,
            name: get_str(r)?,
            expr: get_str(r)?,
            validated: get_bool(r)?,
        })
    })?;
    Ok(DomainDef {
        oid,
        array_oid,
        name,
        owner,
        base,
        parent,
        default,
        not_null,
        checks,
    })
}

fn put_u32(out: &mut Vec<u8>, n: usize) {
    let n = u32::try_from(n).expect("catalog lists are far below 2^32 entries");
    out.extend_from_slice(&n.to_le_bytes());
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    put_u32(out, s.len());
    out.extend_from_slice(s.as_bytes());
}

fn put_opt_str(out: &mut Vec<u8>, s: Option<&str>) {
    match s {
        None => out.push(0),
        Some(s) => {
            out.push(1);
            put_str(out, s);
        }
    }
}

fn get_str(r: &mut Reader<'_>) -> Result<String, String> {
    let n = r.u32()? as usize;
    String::from_utf8(r.bytes(n)?.to_vec()).map_err(|_| "invalid UTF-8 in catalog record".into())
}

fn get_opt_str(r: &mut Reader<'_>) -> Result<Option<String>, String> {
    match r.u8()? {
        0 => Ok(None),
        1 => get_str(r).map(Some),
        t => Err(format!("bad option tag {t}")),
    }
}

fn get_bool(r: &mut Reader<'_>) -> Result<bool, String> {
    match r.u8()? {
        0 => Ok(false),
        1 => Ok(true),
        b => Err(format!("bad boolean {b}")),
    }
}

/// A length-prefixed list; the length is checked against the bytes left
/// before anything is allocated.
fn get_list<'a, T>(
    r: &mut Reader<'a>,
    mut item: impl FnMut(&mut Reader<'a>) -> Result<T, String>,
) -> Result<Vec<T>, String> {
    let n = r.u32()? as usize;
    let mut out = Vec::with_capacity(n.min(1 << 12));
    for _ in 0..n {
        out.push(item(r)?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> TableRecord {
        TableRecord {
            oid: RelId(16384),
            storage: RelId(16385),
            name: "t".into(),
            persistence: Persistence::Unlogged,
            base_width: 2,
            columns: vec![
                ColumnRecord {
                    name: "id".into(),
                    ty: DataType::Int4,
                    domain: None,
                    not_null: true,
                    dropped: false,
                    generated: false,
                    default: Some("nextval('t_id_seq'::regclass)".into()),
                    missing: Value::Null,
                    storage: 0,
                    compression: 0,
                },
                ColumnRecord {
                    name: "v".into(),
                    ty: DataType::Varchar(Some(10)),
                    domain: None,
                    not_null: false,
                    dropped: true,
                    generated: false,
                    default: None,
                    missing: Value::Text("x".into()),
                    storage: b'm',
                    compression: b'l',
                },
                ColumnRecord {
                    name: "g".into(),
                    ty: DataType::Int4,
                    domain: None,
                    not_null: false,
                    dropped: false,
                    generated: true,
                    default: Some("id * 2".into()),
                    missing: Value::Null,
                    storage: 0,
                    compression: 0,
                },
            ],
            checks: vec![("t_id_check".into(), "id > 0".into())],
            indexes: vec![
                IndexRecord {
                    oid: RelId(16386),
                    name: "t_pkey".into(),
                    columns: vec![0],
                    unique: true,
                    primary: true,
                    constraint: true,
                    exprs: None,
                    nulls_not_distinct: false,
                    hash: false,
                    gin: false,
                    keyopts: vec![IndexKeyOpt {
                        desc: true,
                        nulls_first: false,
                        collation: Some("C".into()),
                        opclass: Some("text_pattern_ops".into()),
                        opclass_options: vec![("k".into(), "1".into())],
                    }],
                },
                IndexRecord {
                    oid: RelId(16388),
                    name: "t_g_idx".into(),
                    columns: vec![2],
                    unique: false,
                    primary: false,
                    constraint: false,
                    exprs: None,
                    nulls_not_distinct: false,
                    hash: true,
                    gin: false,
                    keyopts: Vec::new(),
                },
                IndexRecord {
                    oid: RelId(16387),
                    name: "t_lower_idx".into(),
                    columns: vec![],
                    unique: true,
                    primary: false,
                    constraint: false,
                    exprs: Some(IndexExprs {
                        keys: vec![IndexKey::Column(0), IndexKey::Expr("lower(v)".into())],
                        predicate: Some("(id > 10)".into()),
                        gin: Vec::new(),
                        options: Vec::new(),
                    }),
                    nulls_not_distinct: true,
                    hash: false,
                    gin: false,
                    keyopts: Vec::new(),
                },
                IndexRecord {
                    oid: RelId(16389),
                    name: "t_doc_idx".into(),
                    columns: vec![],
                    unique: false,
                    primary: false,
                    constraint: false,
                    exprs: Some(IndexExprs {
                        keys: vec![IndexKey::Column(1)],
                        predicate: None,
                        gin: vec![crate::gin::GinClass::JsonbPathOps],
                        options: vec![("fastupdate".into(), "off".into())],
                    }),
                    nulls_not_distinct: false,
                    hash: false,
                    gin: true,
                    keyopts: Vec::new(),
                },
            ],
            owned_sequences: vec!["t_id_seq".into()],
            triggers: vec![TriggerDef {
                oid: RelId(16500),
                name: "t_audit".into(),
                timing: TriggerTiming::After,
                events: crate::defs::TRIGGER_INSERT | crate::defs::TRIGGER_UPDATE,
                columns: vec!["name".into()],
                row: true,
                when: Some("new.id > 0".into()),
                function: RelId(16501),
                args: vec!["a".into(), "b c".into()],
                parent: Some(RelId(16499)),
                enabled: TriggerEnabled::Replica,
                old_table: Some("old_rows".into()),
                new_table: Some("new_rows".into()),
            }],
            rules: vec![RuleDef {
                oid: RelId(16390),
                name: "r".into(),
                event: RuleEvent::Update,
                instead: true,
                qual: Some("(new.id > 0)".into()),
                actions: vec!["INSERT INTO log VALUES (old.id)".into()],
            }],
            row_security: RowSecurity {
                enabled: true,
                forced: false,
                policies: vec![PolicyDef {
                    oid: RelId(16391),
                    name: "p".into(),
                    cmd: PolicyCmd::Update,
                    permissive: false,
                    roles: vec![0, 16400],
                    qual: Some("(id > 0)".into()),
                    check: None,
                }],
            },
            foreign_keys: vec![ForeignKey {
                oid: RelId(16502),
                name: "t_id_fkey".into(),
                columns: vec![0],
                parent: RelId(16300),
                parent_columns: vec![1],
                on_delete: FkAction::Cascade,
                on_update: FkAction::NoAction,
                deferrable: true,
                deferred: true,
                match_full: true,
            }],
            identities: vec![Identity {
                column: 0,
                always: true,
            }],
            matview: Some(MatView {
                query: "SELECT 1".into(),
                populated: false,
                rule_oid: RelId(16500),
                depends_on: vec![RelId(16384)],
            }),
            not_valid: vec!["t_id_check".into()],
            inherits: vec![RelId(16390)],
            partition_key: None,
            partition_bound: Some(PartitionBound::Range {
                from: vec![RangeDatum::MinValue],
                to: vec![RangeDatum::Value(Value::Int4(10))],
            }),
        }
    }

    /// `table()` partitioned by `key`.
    fn keyed(key: PartitionKey) -> CatalogRecord {
        let mut t = table();
        t.partition_key = Some(key);
        t.partition_bound = None;
        CatalogRecord::put_table(t)
    }

    #[test]
    fn every_record_round_trips() {
        let records = [
            CatalogRecord::put_table(table()),
            keyed(PartitionKey::of_columns(PartStrategy::Range, vec![0, 1])),
            keyed(PartitionKey {
                strategy: PartStrategy::List,
                parts: vec![
                    KeyPart::Column(1),
                    KeyPart::Expr(KeyExpr {
                        sql: "lower(name)".into(),
                        ty: DataType::Text,
                        columns: vec![1],
                    }),
                ],
                collations: vec![Some("C".into()), None],
                opclasses: vec![None, None],
            }),
            keyed(PartitionKey {
                strategy: PartStrategy::Hash,
                parts: vec![
                    KeyPart::Column(0),
                    KeyPart::Expr(KeyExpr {
                        sql: "lower(name)".into(),
                        ty: DataType::Text,
                        columns: vec![1],
                    }),
                    KeyPart::Column(1),
                ],
                collations: vec![None, None, Some("C".into())],
                opclasses: vec![Some(16410), Some(16411), None],
            }),
            CatalogRecord::PutOpFamily(OpFamilyDef {
                oid: 16409,
                name: "fam".into(),
                am: AccessMethod::Hash,
                owner: 10,
            }),
            CatalogRecord::PutOpClass(OpClassDef {
                oid: 16410,
                name: "my_int4_ops".into(),
                am: AccessMethod::Hash,
                family: 16409,
                intype: 23,
                default: false,
                owner: 10,
                operators: vec![OpMember {
                    oid: 16412,
                    number: 1,
                    opr: 96,
                    left: 23,
                    right: 23,
                }],
                procs: vec![ProcMember {
                    oid: 16413,
                    number: 2,
                    func: 16408,
                    name: "h".into(),
                    left: 23,
                    right: 23,
                }],
            }),
            CatalogRecord::DropOpClass { oid: 16410 },
            CatalogRecord::DropOpFamily { oid: 16409 },
            CatalogRecord::DropTable { name: "t".into() },
            CatalogRecord::RenameTable {
                from: "t".into(),
                to: "u".into(),
            },
            CatalogRecord::PutView(ViewDef {
                namespace: crate::PUBLIC_NAMESPACE_OID,
                oid: RelId(40),
                rule_oid: RelId(41),
                name: "v".into(),
                query: "SELECT a FROM t".into(),
                columns: vec![("a".into(), DataType::Int4)],
                depends_on: vec![RelId(7)],
                temporary: false,
                check_option: ViewCheckOption::Cascaded,
                security_invoker: true,
                security_barrier: false,
                rules: Vec::new(),
                triggers: Vec::new(),
                defaults: vec![(0, "42".into())],
                column_deps: Some(vec![(RelId(7), vec![0, 1, 3])]),
            }),
            CatalogRecord::PutView(ViewDef {
                namespace: crate::PUBLIC_NAMESPACE_OID,
                oid: RelId(42),
                rule_oid: RelId(43),
                name: "w".into(),
                query: "SELECT a FROM t".into(),
                columns: vec![("a".into(), DataType::Int4)],
                depends_on: vec![RelId(7)],
                temporary: false,
                check_option: ViewCheckOption::None,
                security_invoker: false,
                security_barrier: true,
                rules: vec![RuleDef {
                    oid: RelId(44),
                    name: "w_ins".into(),
                    event: RuleEvent::Insert,
                    instead: true,
                    qual: None,
                    actions: Vec::new(),
                }],
                triggers: vec![TriggerDef {
                    oid: RelId(45),
                    name: "w_io".into(),
                    timing: TriggerTiming::Instead,
                    events: crate::TRIGGER_INSERT | crate::TRIGGER_DELETE,
                    columns: Vec::new(),
                    row: true,
                    when: None,
                    function: RelId(46),
                    args: vec!["x".into()],
                    parent: None,
                    enabled: TriggerEnabled::Origin,
                    old_table: None,
                    new_table: None,
                }],
                defaults: Vec::new(),
                column_deps: None,
            }),
            CatalogRecord::PutView(ViewDef {
                namespace: crate::PUBLIC_NAMESPACE_OID,
                oid: RelId(47),
                rule_oid: RelId(48),
                name: "x".into(),
                query: "SELECT 1".into(),
                columns: vec![("?column?".into(), DataType::Int4)],
                depends_on: Vec::new(),
                temporary: false,
                check_option: ViewCheckOption::None,
                security_invoker: false,
                security_barrier: false,
                rules: Vec::new(),
                triggers: vec![TriggerDef {
                    oid: RelId(49),
                    name: "x_st".into(),
                    timing: TriggerTiming::Before,
                    events: crate::TRIGGER_UPDATE,
                    columns: Vec::new(),
                    row: false,
                    when: None,
                    function: RelId(46),
                    args: Vec::new(),
                    parent: None,
                    enabled: TriggerEnabled::Origin,
                    old_table: None,
                    new_table: None,
                }],
                defaults: Vec::new(),
                column_deps: None,
            }),
            CatalogRecord::DropView { name: "v".into() },
            CatalogRecord::Comment {
                key: (1259, 40, 2),
                text: Some("a column".into()),
            },
            CatalogRecord::Comment {
                key: (1255, 41, 0),
                text: None,
            },
            CatalogRecord::PutRole(RoleDef {
                conn_limit: 3,
                password: Some("SCRAM-SHA-256$4096:c2FsdA==$a:b".into()),
                valid_until: Some(-5),
                member_of: vec![Membership {
                    role: RelId(16400),
                    grantor: RelId(10),
                    admin: true,
                }],
                ..RoleDef::superuser(RelId(16401), "alice")
            }),
            CatalogRecord::PutRole(RoleDef::new(RelId(16402), "nobody")),
            CatalogRecord::SetAcl {
                key: (1259, 16500),
                acl: Some(ObjAcl {
                    owner: RelId(16401),
                    acl: Some(vec![AclItem {
                        grantee: 0,
                        grantor: 16401,
                        privs: 3,
                        grant_option: 1,
                    }]),
                    cols: vec![(
                        2,
                        vec![AclItem {
                            grantee: 16402,
                            grantor: 16401,
                            privs: 2,
                            grant_option: 0,
                        }],
                    )],
                }),
            },
            CatalogRecord::SetAcl {
                key: (1255, 16501),
                acl: Some(ObjAcl {
                    owner: RelId(16401),
                    acl: None,
                    cols: Vec::new(),
                }),
            },
            CatalogRecord::SetAcl {
                key: (2615, 2200),
                acl: None,
            },
            CatalogRecord::SetRoleSettings {
                key: (5, 16401),
                config: Some(vec![
                    ("timezone".into(), "UTC".into()),
                    ("search_path".into(), "\"$user\", public".into()),
                ]),
            },
            CatalogRecord::SetRoleSettings {
                key: (0, 16402),
                config: Some(Vec::new()),
            },
            CatalogRecord::SetRoleSettings {
                key: (5, 0),
                config: None,
            },
            CatalogRecord::SetDefaultAcl {
                key: (16401, 2200, b'r'),
                acl: Some(vec![AclItem {
                    grantee: 0,
                    grantor: 16401,
                    privs: 2,
                    grant_option: 0,
                }]),
            },
            CatalogRecord::SetDefaultAcl {
                key: (16401, 0, b'f'),
                acl: None,
            },
            CatalogRecord::SetExtension {
                name: "uuid-ossp".into(),
                ext: Some(crate::defs::ExtensionDef {
                    oid: RelId(16410),
                    version: "1.1".into(),
                }),
            },
            CatalogRecord::SetExtension {
                name: "pgcrypto".into(),
                ext: None,
            },
            CatalogRecord::DropRole {
                name: "alice".into(),
            },
            CatalogRecord::PutEnum({
                let mut e = EnumDef::new(16500, 16499, "mood", vec![(16501, "sad".into())]);
                e.owner = 16401;
                e.add_label(16502, "ok", nestor_types::enums::Position::Before("sad"))
                    .unwrap();
                e
            }),
            CatalogRecord::DropEnum {
                name: "mood".into(),
            },
            CatalogRecord::PutDomain(DomainDef {
                oid: 16600,
                array_oid: 16599,
                name: "posint".into(),
                owner: 10,
                base: DataType::Numeric(None),
                parent: Some(16500),
                default: Some("1".into()),
                not_null: true,
                checks: vec![DomainCheck {
                    oid: 16601,
                    name: "posint_check".into(),
                    expr: "VALUE > 0".into(),
                    validated: false,
                }],
            }),
            CatalogRecord::DropDomain {
                name: "posint".into(),
            },
            CatalogRecord::PutSequence(SequenceRecord {
                oid: RelId(16387),
                name: "s".into(),
                increment: -2,
                min: i64::MIN,
                max: -1,
                start: -1,
                cycle: true,
                owned_by: Some(("t".into(), "id".into())),
                last: -5,
                called: true,
                type_oid: 21,
                cache: 20,
            }),
            CatalogRecord::DropSequence { name: "s".into() },
            CatalogRecord::Sequences(vec![("s".into(), 7, false)]),
            CatalogRecord::PutFunction(FunctionRecord {
                oid: RelId(16390),
                name: "f".into(),
                procedure: false,
                args: vec![
                    FuncArg {
                        name: "x".into(),
                        ty: DataType::Int4,
                        domain: None,
                        mode: ArgMode::In,
                        default: Some("1".into()),
                    },
                    FuncArg {
                        name: String::new(),
                        ty: DataType::Text,
                        domain: None,
                        mode: ArgMode::Out,
                        default: None,
                    },
                ],
                returns: Returns::Row(vec![("a".into(), DataType::Int8)]),
                retset: true,
                language: Language::PlPgSql,
                body: "BEGIN RETURN; END".into(),
                volatility: Volatility::Stable,
                strict: true,
                aggregate: None,
                result_domain: None,
            }),
            CatalogRecord::PutFunction(FunctionRecord {
                oid: RelId(16391),
                name: "my_sum".into(),
                procedure: false,
                args: vec![FuncArg {
                    name: String::new(),
                    ty: DataType::Int4,
                    domain: None,
                    mode: ArgMode::In,
                    default: None,
                }],
                returns: Returns::Scalar(DataType::Int8),
                retset: false,
                language: Language::Sql,
                body: String::new(),
                volatility: Volatility::Immutable,
                strict: false,
                aggregate: Some(AggregateSpec {
                    sfunc: "int8pl".into(),
                    stype: DataType::Int8,
                    finalfunc: Some("abs".into()),
                    initcond: Some("0".into()),
                    combinefunc: None,
                    finalfunc_extra: true,
                }),
                result_domain: None,
            }),
            CatalogRecord::DropFunction {
                name: "f".into(),
                oid: RelId(16390),
            },
            CatalogRecord::PutSchema(crate::SchemaDef {
                oid: RelId(16391),
                name: "app".into(),
            }),
            CatalogRecord::DropSchema { oid: RelId(16391) },
            CatalogRecord::PutComposite(CompositeDef {
                oid: 16602,
                array_oid: 16601,
                relid: 16600,
                name: "pair".into(),
                owner: 10,
                attrs: vec![
                    ("a".into(), DataType::Int4),
                    ("b".into(), DataType::Varchar(Some(5))),
                ],
                domains: Vec::new(),
            }),
            CatalogRecord::DropComposite {
                name: "pair".into(),
            },
            CatalogRecord::PutCast(CastDef {
                oid: 16400,
                source: 16390,
                target: 23,
                method: CastMethod::Function {
                    oid: 16399,
                    name: "rank_of".into(),
                },
                context: Coercion::Assignment,
            }),
            CatalogRecord::PutCast(CastDef {
                oid: 16401,
                source: 25,
                target: 16390,
                method: CastMethod::InOut,
                context: Coercion::Implicit,
            }),
            CatalogRecord::PutCast(CastDef {
                oid: 16402,
                source: 23,
                target: 700,
                method: CastMethod::Binary,
                context: Coercion::Explicit,
            }),
            CatalogRecord::DropCast {
                source: 23,
                target: 700,
            },
            CatalogRecord::InSchema {
                namespace: 16391,
                record: Box::new(CatalogRecord::DropTable { name: "t".into() }),
            },
            CatalogRecord::PutDatabase(crate::DatabaseDef {
                oid: RelId(16392),
                name: "app".into(),
                owner: RelId(10),
                is_template: false,
                allow_conn: true,
                conn_limit: -1,
            }),
            CatalogRecord::DropDatabase { oid: RelId(16392) },
            CatalogRecord::InDatabase {
                database: 16392,
                record: Box::new(CatalogRecord::InSchema {
                    namespace: 16391,
                    record: Box::new(CatalogRecord::DropTable { name: "t".into() }),
                }),
            },
            CatalogRecord::Batch(vec![
                CatalogRecord::Sequences(vec![("s".into(), 3, true)]),
                CatalogRecord::InDatabase {
                    database: 16392,
                    record: Box::new(CatalogRecord::Sequences(vec![("s".into(), 9, false)])),
                },
            ]),
        ];
        for rec in records {
            assert_eq!(CatalogRecord::decode(&rec.encode()).unwrap(), rec);
        }
    }

    #[test]
    fn column_without_storage_keeps_the_old_layout() {
        let cols = table().columns;
        for c in &cols {
            let mut out = Vec::new();
            c.encode(&mut out);
            let tuned = c.storage != 0 || c.compression != 0;
            let flags_at = 4 + c.name.len() + 8;
            assert_eq!(out[flags_at] & 8 != 0, tuned);
            assert_eq!(ColumnRecord::decode(&mut Reader::new(&out)).unwrap(), *c);
        }
    }

    #[test]
    fn nested_in_schema_records_are_errors() {
        let inner = CatalogRecord::InSchema {
            namespace: 1,
            record: Box::new(CatalogRecord::DropSchema { oid: RelId(1) }),
        };
        let mut bytes = vec![TAG_IN_SCHEMA, 2, 0, 0, 0];
        bytes.extend_from_slice(&inner.encode());
        assert!(CatalogRecord::decode(&bytes).is_err());
    }

    #[test]
    fn nested_in_database_records_are_errors() {
        let inner = CatalogRecord::InDatabase {
            database: 1,
            record: Box::new(CatalogRecord::DropSchema { oid: RelId(1) }),
        };
        let mut bytes = vec![TAG_IN_DATABASE, 2, 0, 0, 0];
        bytes.extend_from_slice(&inner.encode());
        assert!(CatalogRecord::decode(&bytes).is_err());
        let batch = CatalogRecord::Batch(vec![CatalogRecord::DropSchema { oid: RelId(1) }]);
        let mut bytes = vec![TAG_BATCH, 1, 0, 0, 0];
        let inner = batch.encode();
        bytes.extend_from_slice(&(inner.len() as u32).to_le_bytes());
        bytes.extend_from_slice(&inner);
        assert!(CatalogRecord::decode(&bytes).is_err());
    }

    #[test]
    fn truncated_and_legacy_records_are_errors() {
        // A table's record ends with its row-level security; cut just
        // before it, it reads as the same table without.
        let secured = CatalogRecord::put_table(table()).encode();
        let unsecured = TableRecord {
            row_security: RowSecurity::default(),
            ..table()
        };
        let ruled = CatalogRecord::put_table(unsecured.clone()).encode();
        assert_eq!(
            CatalogRecord::decode(&secured[..ruled.len()]).unwrap(),
            CatalogRecord::put_table(unsecured),
        );
        // Before that with its rules; cut just before them, it reads as
        // the same table without rules.
        let no_rules = TableRecord {
            rules: Vec::new(),
            row_security: RowSecurity::default(),
            ..table()
        };
        let unruled = CatalogRecord::put_table(no_rules.clone()).encode();
        assert_eq!(
            CatalogRecord::decode(&ruled[..unruled.len()]).unwrap(),
            CatalogRecord::put_table(no_rules.clone()),
        );
        // A partition's record ends with its bound; cut just before it,
        // it reads as the same table without one.
        let part = unruled;
        let base = TableRecord {
            partition_key: None,
            partition_bound: None,
            ..no_rules
        };
        let unbound = CatalogRecord::put_table(base.clone()).encode();
        assert_eq!(
            CatalogRecord::decode(&part[..unbound.len()]).unwrap(),
            CatalogRecord::put_table(base.clone()),
        );
        let bytes = unbound;
        // A table record written before triggers existed ends where the
        // trigger list begins: that one cut is the older format.
        let old = CatalogRecord::put_table(TableRecord {
            triggers: Vec::new(),
            foreign_keys: Vec::new(),
            identities: Vec::new(),
            matview: None,
            not_valid: Vec::new(),
            inherits: Vec::new(),
            ..base.clone()
        });
        let boundary = old.encode().len() - 21;
        // And one written before foreign keys: it ends after the triggers.
        let no_fks = CatalogRecord::put_table(TableRecord {
            foreign_keys: Vec::new(),
            identities: Vec::new(),
            matview: None,
            not_valid: Vec::new(),
            inherits: Vec::new(),
            ..base.clone()
        });
        let fk_boundary = no_fks.encode().len() - 17;
        // And one written before identity columns.
        let no_ids = CatalogRecord::put_table(TableRecord {
            identities: Vec::new(),
            matview: None,
            not_valid: Vec::new(),
            inherits: Vec::new(),
            ..base.clone()
        });
        let id_boundary = no_ids.encode().len() - 13;
        // And one written before materialized views.
        let no_mv = CatalogRecord::put_table(TableRecord {
            matview: None,
            not_valid: Vec::new(),
            inherits: Vec::new(),
            ..base.clone()
        });
        let mv_boundary = no_mv.encode().len() - 9;
        // And one written before NOT VALID constraints.
        let no_nv = CatalogRecord::put_table(TableRecord {
            not_valid: Vec::new(),
            inherits: Vec::new(),
            ..base.clone()
        });
        let nv_boundary = no_nv.encode().len() - 8;
        // And one written before table inheritance.
        let no_inh = CatalogRecord::put_table(TableRecord {
            inherits: Vec::new(),
            ..base.clone()
        });
        let inh_boundary = no_inh.encode().len() - 4;
        for cut in 0..bytes.len() {
            let r = CatalogRecord::decode(&bytes[..cut]);
            if cut == inh_boundary {
                assert_eq!(r.unwrap(), no_inh, "the format before inheritance");
            } else if cut == nv_boundary {
                assert_eq!(r.unwrap(), no_nv, "the format before NOT VALID");
            } else if cut == mv_boundary {
                assert_eq!(r.unwrap(), no_mv, "the format before materialized views");
            } else if cut == id_boundary {
                assert_eq!(r.unwrap(), no_ids, "the format before identity columns");
            } else if cut == fk_boundary {
                assert_eq!(r.unwrap(), no_fks, "the format before foreign keys");
            } else if cut == boundary {
                assert_eq!(r.unwrap(), old, "the older format");
            } else {
                assert!(r.is_err(), "cut at {cut}");
            }
        }
        let e = CatalogRecord::decode(&[TAG_LEGACY_STATEMENT, 0, 0, 0, 0]).unwrap_err();
        assert!(e.contains("older Nestor version"), "{e}");
        let mut long = bytes.clone();
        long.push(0);
        assert!(CatalogRecord::decode(&long).is_err());
    }
}
