//! The system catalog as PostgreSQL 15 shows it: `pg_catalog` relations
//! with PostgreSQL's names, columns and column order, so the queries psql,
//! pg_dump, drivers and ORMs send run unchanged through the ordinary
//! planner and executor (joins, subqueries, functions). Nestor keeps its
//! catalog in its own form (`nestor_catalog`); these relations are views of
//! it, computed when scanned (`nestor_exec::pg_catalog`) from the
//! statement's catalog handle, so a session sees its own uncommitted DDL
//! and other sessions do not.
//!
//! ```text
//!   SELECT c.relname FROM pg_catalog.pg_class c
//!     JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
//!    WHERE c.relkind = 'r'
//!
//!   pg_class  -> Scan(SysView(Catalog(Rel::Class)))  rows: one per table,
//!                                                     index, sequence and
//!                                                     catalog relation
//! ```
//!
//! Column types are PostgreSQL's, mapped to Nestor's ([`column_type`]):
//! `"char"` is text, `xid` and `regproc`-like OID columns are oids or text,
//! `aclitem[]` is text[], `pg_node_tree` is the expression's SQL text (what
//! `pg_get_expr` returns). Relations for features Nestor does not have
//! (policies, publications, inheritance, rules, enums...) exist with no
//! rows, because the tools' queries name them.

use nestor_catalog::{Catalog, PG_CATALOG_NAMESPACE_OID, PUBLIC_NAMESPACE_OID};
use nestor_common::{DbError, SqlState};
use nestor_types::datatype::{DataType, RegKind};

pub const INFORMATION_SCHEMA_NAMESPACE_OID: u32 = 13000;
pub const TOAST_NAMESPACE_OID: u32 = 99;

/// The schemas every database has, by OID.
pub const NAMESPACES: [(u32, &str); 4] = [
    (TOAST_NAMESPACE_OID, "pg_toast"),
    (PG_CATALOG_NAMESPACE_OID, "pg_catalog"),
    (PUBLIC_NAMESPACE_OID, "public"),
    (INFORMATION_SCHEMA_NAMESPACE_OID, "information_schema"),
];

/// The pseudo types with pg_type rows but no DataType: (oid, name).
/// `_record` is `record[]`, the type of a SEARCH DEPTH FIRST or CYCLE
/// path (an array of anonymous records; typed values of it are
/// `DataType::Array(Record)`).
/// The polymorphic ones are `DataType::Poly` in a function's signature.
pub const PSEUDO_TYPES: [(u32, &str); 15] = [
    (2249, "record"),
    (2287, "_record"),
    (2279, "trigger"),
    (2276, "any"),
    (2277, "anyarray"),
    (2275, "cstring"),
    (2281, "internal"),
    (2283, "anyelement"),
    (2776, "anynonarray"),
    (3500, "anyenum"),
    (5077, "anycompatible"),
    (5078, "anycompatiblearray"),
    (5079, "anycompatiblenonarray"),
    (3831, "anyrange"),
    (5080, "anycompatiblerange"),
];

/// The pg_catalog relations, with PostgreSQL 15's columns in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rel {
    Class,
    Attribute,
    Type,
    Namespace,
    Index,
    Constraint,
    Attrdef,
    Am,
    Roles,
    Authid,
    User,
    AuthMembers,
    Database,
    Description,
    Shdescription,
    Inherits,
    Policy,
    StatisticExt,
    Publication,
    PublicationRel,
    PublicationNamespace,
    Trigger,
    Collation,
    Sequence,
    Depend,
    Extension,
    Tablespace,
    Proc,
    Language,
    Rewrite,
    Opclass,
    Views,
    Rules,
    Indexes,
    Matviews,
    Tables,
    Policies,
    ForeignTable,
    PartitionedTable,
    EventTrigger,
    Enum,
    Range,
    Operator,
    Cast,
    Settings,
    InitPrivs,
    Transform,
    Aggregate,
    Conversion,
    TsParser,
    TsTemplate,
    TsDict,
    TsConfig,
    TsConfigMap,
    ForeignDataWrapper,
    ForeignServer,
    UserMapping,
    DefaultAcl,
    LargeobjectMetadata,
    Seclabel,
    Shseclabel,
    Subscription,
    Opfamily,
    Amop,
    Amproc,
    PreparedXacts,
    Seclabels,
    DbRoleSetting,
    ParameterAcl,
    /// The time zone abbreviations of the `Default` set
    /// (`nestor_types::tz_abbrevs`).
    TimezoneAbbrevs,
}

impl Rel {
    pub const ALL: [Rel; 70] = [
        Rel::Class,
        Rel::Attribute,
        Rel::Type,
        Rel::Namespace,
        Rel::Index,
        Rel::Constraint,
        Rel::Attrdef,
        Rel::Am,
        Rel::Roles,
        Rel::Authid,
        Rel::User,
        Rel::AuthMembers,
        Rel::Database,
        Rel::Description,
        Rel::Shdescription,
        Rel::Inherits,
        Rel::Policy,
        Rel::StatisticExt,
        Rel::Publication,
        Rel::PublicationRel,
        Rel::PublicationNamespace,
        Rel::Trigger,
        Rel::Collation,
        Rel::Sequence,
        Rel::Depend,
        Rel::Extension,
        Rel::Tablespace,
        Rel::Proc,
        Rel::Language,
        Rel::Rewrite,
        Rel::Opclass,
        Rel::Views,
        Rel::Rules,
        Rel::Indexes,
        Rel::Matviews,
        Rel::Tables,
        Rel::Policies,
        Rel::ForeignTable,
        Rel::PartitionedTable,
        Rel::EventTrigger,
        Rel::Enum,
        Rel::Range,
        Rel::Operator,
        Rel::Cast,
        Rel::Settings,
        Rel::InitPrivs,
        Rel::Transform,
        Rel::Aggregate,
        Rel::Conversion,
        Rel::TsParser,
        Rel::TsTemplate,
        Rel::TsDict,
        Rel::TsConfig,
        Rel::TsConfigMap,
        Rel::ForeignDataWrapper,
        Rel::ForeignServer,
        Rel::UserMapping,
        Rel::DefaultAcl,
        Rel::LargeobjectMetadata,
        Rel::Seclabel,
        Rel::Shseclabel,
        Rel::Subscription,
        Rel::Opfamily,
        Rel::Amop,
        Rel::Amproc,
        Rel::PreparedXacts,
        Rel::Seclabels,
        Rel::DbRoleSetting,
        Rel::ParameterAcl,
        Rel::TimezoneAbbrevs,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Rel::Class => "pg_class",
            Rel::Attribute => "pg_attribute",
            Rel::Type => "pg_type",
            Rel::Namespace => "pg_namespace",
            Rel::Index => "pg_index",
            Rel::Constraint => "pg_constraint",
            Rel::Attrdef => "pg_attrdef",
            Rel::Am => "pg_am",
            Rel::Roles => "pg_roles",
            Rel::Authid => "pg_authid",
            Rel::User => "pg_user",
            Rel::AuthMembers => "pg_auth_members",
            Rel::Database => "pg_database",
            Rel::Description => "pg_description",
            Rel::Shdescription => "pg_shdescription",
            Rel::Inherits => "pg_inherits",
            Rel::Policy => "pg_policy",
            Rel::StatisticExt => "pg_statistic_ext",
            Rel::Publication => "pg_publication",
            Rel::PublicationRel => "pg_publication_rel",
            Rel::PublicationNamespace => "pg_publication_namespace",
            Rel::Trigger => "pg_trigger",
            Rel::Collation => "pg_collation",
            Rel::Sequence => "pg_sequence",
            Rel::Depend => "pg_depend",
            Rel::Extension => "pg_extension",
            Rel::Tablespace => "pg_tablespace",
            Rel::Proc => "pg_proc",
            Rel::Language => "pg_language",
            Rel::Rewrite => "pg_rewrite",
            Rel::Opclass => "pg_opclass",
            Rel::Views => "pg_views",
            Rel::Rules => "pg_rules",
            Rel::Indexes => "pg_indexes",
            Rel::Matviews => "pg_matviews",
            Rel::Tables => "pg_tables",
            Rel::Policies => "pg_policies",
            Rel::ForeignTable => "pg_foreign_table",
            Rel::PartitionedTable => "pg_partitioned_table",
            Rel::EventTrigger => "pg_event_trigger",
            Rel::Enum => "pg_enum",
            Rel::Range => "pg_range",
            Rel::Operator => "pg_operator",
            Rel::Cast => "pg_cast",
            Rel::Settings => "pg_settings",
            Rel::InitPrivs => "pg_init_privs",
            Rel::Transform => "pg_transform",
            Rel::Aggregate => "pg_aggregate",
            Rel::Conversion => "pg_conversion",
            Rel::TsParser => "pg_ts_parser",
            Rel::TsTemplate => "pg_ts_template",
            Rel::TsDict => "pg_ts_dict",
            Rel::TsConfig => "pg_ts_config",
            Rel::TsConfigMap => "pg_ts_config_map",
            Rel::ForeignDataWrapper => "pg_foreign_data_wrapper",
            Rel::ForeignServer => "pg_foreign_server",
            Rel::UserMapping => "pg_user_mapping",
            Rel::DefaultAcl => "pg_default_acl",
            Rel::LargeobjectMetadata => "pg_largeobject_metadata",
            Rel::Seclabel => "pg_seclabel",
            Rel::Shseclabel => "pg_shseclabel",
            Rel::Subscription => "pg_subscription",
            Rel::Opfamily => "pg_opfamily",
            Rel::Amop => "pg_amop",
            Rel::Amproc => "pg_amproc",
            Rel::PreparedXacts => "pg_prepared_xacts",
            Rel::Seclabels => "pg_seclabels",
            Rel::DbRoleSetting => "pg_db_role_setting",
            Rel::ParameterAcl => "pg_parameter_acl",
            Rel::TimezoneAbbrevs => "pg_timezone_abbrevs",
        }
    }

    /// pg_class.oid (PostgreSQL's; the views' are PostgreSQL 15's where
    /// fixed, else Nestor's own in the same range).
    pub fn oid(self) -> u32 {
        match self {
            Rel::Class => 1259,
            Rel::Attribute => 1249,
            Rel::Type => 1247,
            Rel::Namespace => 2615,
            Rel::Index => 2610,
            Rel::Constraint => 2606,
            Rel::Attrdef => 2604,
            Rel::Am => 2601,
            Rel::Roles => 12001,
            Rel::Authid => 1260,
            Rel::User => 12005,
            Rel::AuthMembers => 1261,
            Rel::Database => 1262,
            Rel::Description => 2609,
            Rel::Shdescription => 2396,
            Rel::Inherits => 2611,
            Rel::Policy => 3256,
            Rel::StatisticExt => 3381,
            Rel::Publication => 6104,
            Rel::PublicationRel => 6106,
            Rel::PublicationNamespace => 6237,
            Rel::Trigger => 2620,
            Rel::Collation => 3456,
            Rel::Sequence => 2224,
            Rel::Depend => 2608,
            Rel::Extension => 3079,
            Rel::Tablespace => 1213,
            Rel::Proc => 1255,
            Rel::Language => 2612,
            Rel::Rewrite => 2618,
            Rel::Opclass => 2616,
            Rel::Views => 12010,
            Rel::Rules => 12023,
            Rel::Indexes => 12020,
            Rel::Matviews => 12015,
            Rel::Tables => 12012,
            Rel::Policies => 12018,
            Rel::ForeignTable => 3118,
            Rel::PartitionedTable => 3350,
            Rel::EventTrigger => 3466,
            Rel::Enum => 3501,
            Rel::Range => 3541,
            Rel::Operator => 2617,
            Rel::Cast => 2605,
            Rel::Settings => 12030,
            Rel::InitPrivs => 3394,
            Rel::Transform => 3576,
            Rel::Aggregate => 2600,
            Rel::Conversion => 2607,
            Rel::TsParser => 3601,
            Rel::TsTemplate => 3764,
            Rel::TsDict => 3600,
            Rel::TsConfig => 3602,
            Rel::TsConfigMap => 3603,
            Rel::ForeignDataWrapper => 2328,
            Rel::ForeignServer => 1417,
            Rel::UserMapping => 1418,
            Rel::DefaultAcl => 826,
            Rel::LargeobjectMetadata => 2995,
            Rel::Seclabel => 3596,
            Rel::Shseclabel => 3592,
            Rel::Subscription => 6100,
            Rel::Opfamily => 2753,
            Rel::Amop => 2602,
            Rel::Amproc => 2603,
            Rel::PreparedXacts => 12090,
            Rel::Seclabels => 12099,
            Rel::DbRoleSetting => 2964,
            Rel::ParameterAcl => 6243,
            Rel::TimezoneAbbrevs => 12060,
        }
    }

    /// Whether PostgreSQL defines it as a view (pg_class.relkind `v`).
    pub fn is_view(self) -> bool {
        matches!(
            self,
            Rel::Roles
                | Rel::User
                | Rel::Views
                | Rel::Rules
                | Rel::Indexes
                | Rel::Matviews
                | Rel::Tables
                | Rel::Policies
                | Rel::Settings
                | Rel::TimezoneAbbrevs
                | Rel::PreparedXacts
                | Rel::Seclabels
        )
    }

    /// `name:type` per column, PostgreSQL's types (mapped by [`column_type`]).
    pub(crate) fn spec(self) -> &'static str {
        match self {
            Rel::Class => "oid:oid relname:name relnamespace:oid reltype:oid reloftype:oid relowner:oid relam:oid relfilenode:oid reltablespace:oid relpages:integer reltuples:real relallvisible:integer reltoastrelid:oid relhasindex:boolean relisshared:boolean relpersistence:\"char\" relkind:\"char\" relnatts:smallint relchecks:smallint relhasrules:boolean relhastriggers:boolean relhassubclass:boolean relrowsecurity:boolean relforcerowsecurity:boolean relispopulated:boolean relreplident:\"char\" relispartition:boolean relrewrite:oid relfrozenxid:xid relminmxid:xid relacl:aclitem[] reloptions:text[] relpartbound:pg_node_tree",
            Rel::Attribute => "attrelid:oid attname:name atttypid:oid attstattarget:integer attlen:smallint attnum:smallint attndims:integer attcacheoff:integer atttypmod:integer attbyval:boolean attalign:\"char\" attstorage:\"char\" attcompression:\"char\" attnotnull:boolean atthasdef:boolean atthasmissing:boolean attidentity:\"char\" attgenerated:\"char\" attisdropped:boolean attislocal:boolean attinhcount:integer attcollation:oid attacl:aclitem[] attoptions:text[] attfdwoptions:text[] attmissingval:anyarray",
            Rel::Type => "oid:oid typname:name typnamespace:oid typowner:oid typlen:smallint typbyval:boolean typtype:\"char\" typcategory:\"char\" typispreferred:boolean typisdefined:boolean typdelim:\"char\" typrelid:oid typsubscript:regproc typelem:oid typarray:oid typinput:regproc typoutput:regproc typreceive:regproc typsend:regproc typmodin:regproc typmodout:regproc typanalyze:regproc typalign:\"char\" typstorage:\"char\" typnotnull:boolean typbasetype:oid typtypmod:integer typndims:integer typcollation:oid typdefaultbin:pg_node_tree typdefault:text typacl:aclitem[]",
            Rel::Namespace => "oid:oid nspname:name nspowner:oid nspacl:aclitem[]",
            Rel::Index => "indexrelid:oid indrelid:oid indnatts:smallint indnkeyatts:smallint indisunique:boolean indnullsnotdistinct:boolean indisprimary:boolean indisexclusion:boolean indimmediate:boolean indisclustered:boolean indisvalid:boolean indcheckxmin:boolean indisready:boolean indislive:boolean indisreplident:boolean indkey:int2vector indcollation:oidvector indclass:oidvector indoption:int2vector indexprs:pg_node_tree indpred:pg_node_tree",
            Rel::Constraint => "oid:oid conname:name connamespace:oid contype:\"char\" condeferrable:boolean condeferred:boolean convalidated:boolean conrelid:oid contypid:oid conindid:oid conparentid:oid confrelid:oid confupdtype:\"char\" confdeltype:\"char\" confmatchtype:\"char\" conislocal:boolean coninhcount:integer connoinherit:boolean conkey:smallint[] confkey:smallint[] conpfeqop:oid[] conppeqop:oid[] conffeqop:oid[] confdelsetcols:smallint[] conexclop:oid[] conbin:pg_node_tree",
            Rel::Attrdef => "oid:oid adrelid:oid adnum:smallint adbin:pg_node_tree",
            Rel::Am => "oid:oid amname:name amhandler:regproc amtype:\"char\"",
            Rel::Roles => "rolname:name rolsuper:boolean rolinherit:boolean rolcreaterole:boolean rolcreatedb:boolean rolcanlogin:boolean rolreplication:boolean rolconnlimit:integer rolpassword:text rolvaliduntil:timestamptz rolbypassrls:boolean rolconfig:text[] oid:oid",
            Rel::Authid => "oid:oid rolname:name rolsuper:boolean rolinherit:boolean rolcreaterole:boolean rolcreatedb:boolean rolcanlogin:boolean rolreplication:boolean rolbypassrls:boolean rolconnlimit:integer rolpassword:text rolvaliduntil:timestamptz",
            Rel::User => "usename:name usesysid:oid usecreatedb:boolean usesuper:boolean userepl:boolean usebypassrls:boolean passwd:text valuntil:timestamptz useconfig:text[]",
            Rel::AuthMembers => "roleid:oid member:oid grantor:oid admin_option:boolean",
            Rel::Database => "oid:oid datname:name datdba:oid encoding:integer datlocprovider:\"char\" datistemplate:boolean datallowconn:boolean datconnlimit:integer datfrozenxid:xid datminmxid:xid dattablespace:oid datcollate:text datctype:text daticulocale:text datcollversion:text datacl:aclitem[]",
            Rel::Description => "objoid:oid classoid:oid objsubid:integer description:text",
            Rel::Shdescription => "objoid:oid classoid:oid description:text",
            Rel::Inherits => "inhrelid:oid inhparent:oid inhseqno:integer inhdetachpending:boolean",
            Rel::Policy => "oid:oid polname:name polrelid:oid polcmd:\"char\" polpermissive:boolean polroles:oid[] polqual:pg_node_tree polwithcheck:pg_node_tree",
            Rel::StatisticExt => "oid:oid stxrelid:oid stxname:name stxnamespace:oid stxowner:oid stxstattarget:integer stxkeys:int2vector stxkind:\"char\"[] stxexprs:pg_node_tree",
            Rel::Publication => "oid:oid pubname:name pubowner:oid puballtables:boolean pubinsert:boolean pubupdate:boolean pubdelete:boolean pubtruncate:boolean pubviaroot:boolean",
            Rel::PublicationRel => "oid:oid prpubid:oid prrelid:oid prqual:pg_node_tree prattrs:int2vector",
            Rel::PublicationNamespace => "oid:oid pnpubid:oid pnnspid:oid",
            Rel::Trigger => "oid:oid tgrelid:oid tgparentid:oid tgname:name tgfoid:oid tgtype:smallint tgenabled:\"char\" tgisinternal:boolean tgconstrrelid:oid tgconstrindid:oid tgconstraint:oid tgdeferrable:boolean tginitdeferred:boolean tgnargs:smallint tgattr:int2vector tgargs:bytea tgqual:pg_node_tree tgoldtable:name tgnewtable:name",
            Rel::Collation => "oid:oid collname:name collnamespace:oid collowner:oid collprovider:\"char\" collisdeterministic:boolean collencoding:integer collcollate:text collctype:text colliculocale:text collversion:text",
            Rel::Sequence => "seqrelid:oid seqtypid:oid seqstart:bigint seqincrement:bigint seqmax:bigint seqmin:bigint seqcache:bigint seqcycle:boolean",
            Rel::Depend => "classid:oid objid:oid objsubid:integer refclassid:oid refobjid:oid refobjsubid:integer deptype:\"char\"",
            Rel::Extension => "oid:oid extname:name extowner:oid extnamespace:oid extrelocatable:boolean extversion:text extconfig:oid[] extcondition:text[]",
            Rel::Tablespace => "oid:oid spcname:name spcowner:oid spcacl:aclitem[] spcoptions:text[]",
            Rel::Proc => "oid:oid proname:name pronamespace:oid proowner:oid prolang:oid procost:real prorows:real provariadic:oid prosupport:regproc prokind:\"char\" prosecdef:boolean proleakproof:boolean proisstrict:boolean proretset:boolean provolatile:\"char\" proparallel:\"char\" pronargs:smallint pronargdefaults:smallint prorettype:oid proargtypes:oidvector proallargtypes:oid[] proargmodes:\"char\"[] proargnames:text[] proargdefaults:pg_node_tree protrftypes:oid[] prosrc:text probin:text prosqlbody:pg_node_tree proconfig:text[] proacl:aclitem[]",
            Rel::Language => "oid:oid lanname:name lanowner:oid lanispl:boolean lanpltrusted:boolean lanplcallfoid:oid laninline:oid lanvalidator:oid lanacl:aclitem[]",
            Rel::Rewrite => "oid:oid rulename:name ev_class:oid ev_type:\"char\" ev_enabled:\"char\" is_instead:boolean ev_qual:pg_node_tree ev_action:pg_node_tree",
            Rel::Opclass => "oid:oid opcmethod:oid opcname:name opcnamespace:oid opcowner:oid opcfamily:oid opcintype:oid opcdefault:boolean opckeytype:oid",
            Rel::Views => "schemaname:name viewname:name viewowner:name definition:text",
            Rel::Rules => "schemaname:name tablename:name rulename:name definition:text",
            Rel::Indexes => "schemaname:name tablename:name indexname:name tablespace:name indexdef:text",
            Rel::Matviews => "schemaname:name matviewname:name matviewowner:name tablespace:name hasindexes:boolean ispopulated:boolean definition:text",
            Rel::Policies => "schemaname:name tablename:name policyname:name permissive:text roles:name[] cmd:text qual:text with_check:text",
            Rel::Tables => "schemaname:name tablename:name tableowner:name tablespace:name hasindexes:boolean hasrules:boolean hastriggers:boolean rowsecurity:boolean",
            Rel::ForeignTable => "ftrelid:oid ftserver:oid ftoptions:text[]",
            Rel::PartitionedTable => "partrelid:oid partstrat:\"char\" partnatts:smallint partdefid:oid partattrs:int2vector partclass:oidvector partcollation:oidvector partexprs:pg_node_tree",
            Rel::EventTrigger => "oid:oid evtname:name evtevent:name evtowner:oid evtfoid:oid evtenabled:\"char\" evttags:text[]",
            Rel::Enum => "oid:oid enumtypid:oid enumsortorder:real enumlabel:name",
            Rel::Range => "rngtypid:oid rngsubtype:oid rngmultitypid:oid rngcollation:oid rngsubopc:oid rngcanonical:regproc rngsubdiff:regproc",
            Rel::Operator => "oid:oid oprname:name oprnamespace:oid oprowner:oid oprkind:\"char\" oprcanmerge:boolean oprcanhash:boolean oprleft:oid oprright:oid oprresult:oid oprcom:oid oprnegate:oid oprcode:regproc oprrest:regproc oprjoin:regproc",
            Rel::Cast => "oid:oid castsource:oid casttarget:oid castfunc:oid castcontext:\"char\" castmethod:\"char\"",
            Rel::Settings => "name:text setting:text unit:text category:text short_desc:text extra_desc:text context:text vartype:text source:text min_val:text max_val:text enumvals:text[] boot_val:text reset_val:text sourcefile:text sourceline:integer pending_restart:boolean",
            Rel::InitPrivs => "objoid:oid classoid:oid objsubid:integer privtype:\"char\" initprivs:aclitem[]",
            Rel::Transform => "oid:oid trftype:oid trflang:oid trffromsql:regproc trftosql:regproc",
            Rel::Aggregate => "aggfnoid:regproc aggkind:\"char\" aggnumdirectargs:smallint aggtransfn:regproc aggfinalfn:regproc aggcombinefn:regproc aggserialfn:regproc aggdeserialfn:regproc aggmtransfn:regproc aggminvtransfn:regproc aggmfinalfn:regproc aggfinalextra:boolean aggmfinalextra:boolean aggfinalmodify:\"char\" aggmfinalmodify:\"char\" aggsortop:oid aggtranstype:oid aggtransspace:integer aggmtranstype:oid aggmtransspace:integer agginitval:text aggminitval:text",
            Rel::Conversion => "oid:oid conname:name connamespace:oid conowner:oid conforencoding:integer contoencoding:integer conproc:regproc condefault:boolean",
            Rel::TsParser => "oid:oid prsname:name prsnamespace:oid prsstart:regproc prstoken:regproc prsend:regproc prsheadline:regproc prslextype:regproc",
            Rel::TsTemplate => "oid:oid tmplname:name tmplnamespace:oid tmplinit:regproc tmpllexize:regproc",
            Rel::TsDict => "oid:oid dictname:name dictnamespace:oid dictowner:oid dicttemplate:oid dictinitoption:text",
            Rel::TsConfig => "oid:oid cfgname:name cfgnamespace:oid cfgowner:oid cfgparser:oid",
            Rel::TsConfigMap => "mapcfg:oid maptokentype:integer mapseqno:integer mapdict:oid",
            Rel::ForeignDataWrapper => "oid:oid fdwname:name fdwowner:oid fdwhandler:oid fdwvalidator:oid fdwacl:aclitem[] fdwoptions:text[]",
            Rel::ForeignServer => "oid:oid srvname:name srvowner:oid srvfdw:oid srvtype:text srvversion:text srvacl:aclitem[] srvoptions:text[]",
            Rel::UserMapping => "oid:oid umuser:oid umserver:oid umoptions:text[]",
            Rel::DefaultAcl => "oid:oid defaclrole:oid defaclnamespace:oid defaclobjtype:\"char\" defaclacl:aclitem[]",
            Rel::LargeobjectMetadata => "oid:oid lomowner:oid lomacl:aclitem[]",
            Rel::Seclabel => "objoid:oid classoid:oid objsubid:integer provider:text label:text",
            Rel::Shseclabel => "objoid:oid classoid:oid provider:text label:text",
            Rel::Subscription => "oid:oid subdbid:oid subskiplsn:pg_lsn subname:name subowner:oid subenabled:boolean subbinary:boolean substream:boolean subtwophasestate:\"char\" subdisableonerr:boolean subconninfo:text subslotname:name subsynccommit:text subpublications:text[]",
            Rel::Opfamily => "oid:oid opfmethod:oid opfname:name opfnamespace:oid opfowner:oid",
            Rel::Amop => "oid:oid amopfamily:oid amoplefttype:oid amoprighttype:oid amopstrategy:smallint amoppurpose:\"char\" amopopr:oid amopmethod:oid amopsortfamily:oid",
            Rel::Amproc => "oid:oid amprocfamily:oid amproclefttype:oid amprocrighttype:oid amprocnum:smallint amproc:regproc",
            Rel::PreparedXacts => "transaction:xid gid:text prepared:timestamptz owner:name database:name",
            Rel::Seclabels => "objoid:oid classoid:oid objsubid:integer objtype:text objnamespace:oid objname:text provider:text label:text",
            Rel::DbRoleSetting => "setdatabase:oid setrole:oid setconfig:text[]",
            Rel::ParameterAcl => "oid:oid parname:text paracl:aclitem[]",
            Rel::TimezoneAbbrevs => "abbrev:text utc_offset:interval is_dst:boolean",
        }
    }
}

/// The relation named `name` (schema already checked), if it is one.
pub fn by_name(name: &str) -> Option<Rel> {
    Rel::ALL.into_iter().find(|r| r.name() == name)
}

/// The input function of a reg* type: the OID of the object `name`
/// names (a number is taken as the OID).
pub fn reg_lookup(catalog: &Catalog, kind: RegKind, name: &str) -> Result<u32, DbError> {
    let n = name.trim();
    if let Ok(oid) = n.parse::<u32>() {
        return Ok(oid);
    }
    match kind {
        RegKind::Class => regclass(catalog, n),
        RegKind::Config => nestor_types::tsearch::config::config_oid(n),
        RegKind::Dictionary => nestor_types::tsearch::config::dictionary_oid(n),
        RegKind::Role => {
            let bare = n.trim_matches('"');
            match catalog.role(bare) {
                Some(r) => Ok(r.oid.0),
                None if bare == "pg_database_owner" => Ok(6171),
                None => Err(DbError::new(
                    SqlState::UndefinedObject,
                    format!("role \"{bare}\" does not exist"),
                )),
            }
        }
        RegKind::Namespace => {
            let bare = n.trim_matches('"');
            NAMESPACES
                .iter()
                .find(|(_, s)| *s == bare)
                .map(|(o, _)| *o)
                .or_else(|| catalog.schema(bare).map(|s| s.oid.0))
                .ok_or_else(|| {
                    DbError::new(
                        SqlState::InvalidSchemaName,
                        format!("schema \"{bare}\" does not exist"),
                    )
                })
        }
        RegKind::Type => {
            let bare = n.strip_prefix("pg_catalog.").unwrap_or(n);
            if let Some((o, _)) = PSEUDO_TYPES.iter().find(|(_, p)| *p == bare) {
                return Ok(*o);
            }
            let unquoted = |s: &str| {
                s.strip_prefix("public.")
                    .unwrap_or(s)
                    .trim_matches('"')
                    .to_string()
            };
            match bare.strip_suffix("[]") {
                Some(elem) => {
                    if let Some(d) = nestor_types::domains::by_name(&unquoted(elem)) {
                        return Ok(d.array_oid);
                    }
                }
                None => {
                    if let Some(d) = nestor_types::domains::by_name(&unquoted(bare)) {
                        return Ok(d.oid);
                    }
                }
            }
            let t = match bare.strip_suffix("[]") {
                Some(elem) => DataType::from_sql_name(elem, &[])?
                    .array_of()
                    .ok_or_else(|| {
                        DbError::new(
                            SqlState::UndefinedObject,
                            format!("type \"{bare}\" does not exist"),
                        )
                    })?,
                None => DataType::from_sql_name(bare, &[])?,
            };
            Ok(t.oid())
        }
        RegKind::Proc => {
            // pg_catalog is searched first, as in PostgreSQL: the built-in
            // functions with pg_proc rows are the types' I/O functions.
            let builtin = n.strip_prefix("pg_catalog.").unwrap_or(n).trim_matches('"');
            if let Some(f) = nestor_types::io_functions::by_name(builtin) {
                return Ok(f.oid);
            }
            let bare = n.strip_prefix("public.").unwrap_or(n).trim_matches('"');
            let fs = catalog.functions(bare);
            match fs.as_slice() {
                [f] => Ok(f.oid.0),
                [] => Err(DbError::new(
                    SqlState::UndefinedFunction,
                    format!("function \"{bare}\" does not exist"),
                )),
                _ => Err(DbError::new(
                    SqlState::AmbiguousFunction,
                    format!("more than one function named \"{bare}\""),
                )),
            }
        }
    }
}

/// `'name'::regclass`: a catalog relation (`pg_catalog.` optional, as the
/// schema is searched first), else the catalog's own lookup.
pub fn regclass(catalog: &Catalog, name: &str) -> Result<u32, DbError> {
    if name.trim().parse::<u32>().is_err() {
        let n = nestor_catalog::qualified_name(name)?;
        if let Some(r) = by_name(n.strip_prefix("pg_catalog.").unwrap_or(&n)) {
            return Ok(r.oid());
        }
    }
    catalog.regclass(name)
}

/// The relation whose pg_class OID is `oid`.
pub fn by_oid(oid: u32) -> Option<Rel> {
    Rel::ALL.into_iter().find(|r| r.oid() == oid)
}

/// Nestor's type for a catalog column of PostgreSQL type `pg`.
pub fn column_type(pg: &str) -> DataType {
    use DataType as T;
    let array = |t: DataType| t.array_of().expect("a base type");
    match pg {
        "oid" | "xid" => T::Oid,
        "name" => T::Name,
        "boolean" => T::Bool,
        "smallint" => T::Int2,
        "integer" => T::Int4,
        "bigint" => T::Int8,
        "real" => T::Float4,
        "bytea" => T::Bytea,
        "timestamptz" => T::TimestampTz(None),
        "regproc" => T::Reg(RegKind::Proc),
        "pg_lsn" => T::PgLsn,
        "int2vector" => T::Int2Vector,
        "oidvector" => T::OidVector,
        "oid[]" => array(T::Oid),
        "smallint[]" => array(T::Int2),
        "text[]" | "aclitem[]" | "\"char\"[]" => array(T::Text),
        // "char", text, pg_node_tree (SQL text), anyarray
        // (attmissingval, shown as text).
        _ => T::Text,
    }
}

/// The columns of `rel`: name and type.
pub fn columns(rel: Rel) -> Vec<(&'static str, DataType)> {
    rel.spec()
        .split(' ')
        .map(|c| {
            let (name, ty) = c.split_once(':').expect("name:type");
            (name, column_type(ty))
        })
        .collect()
}

pub use nestor_common::keywords::quote_identifier as quote_ident;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_relation_has_columns_and_a_distinct_oid() {
        let mut oids: Vec<u32> = Rel::ALL.iter().map(|r| r.oid()).collect();
        oids.sort_unstable();
        oids.dedup();
        assert_eq!(oids.len(), Rel::ALL.len());
        for r in Rel::ALL {
            assert!(!columns(r).is_empty(), "{}", r.name());
            assert_eq!(by_name(r.name()), Some(r));
        }
        let class = columns(Rel::Class);
        assert_eq!(class[0], ("oid", DataType::Oid));
        assert_eq!(class.len(), 33);
        assert!(columns(Rel::Index).contains(&("indkey", DataType::Int2Vector)));
    }
}
