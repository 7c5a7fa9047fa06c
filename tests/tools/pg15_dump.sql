--
-- PostgreSQL database dump
--


-- Dumped from database version 15.18 (Debian 15.18-0+deb12u1)
-- Dumped by pg_dump version 15.18 (Debian 15.18-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

--
-- Name: add(integer, integer); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.add(a integer, b integer DEFAULT 1) RETURNS integer
    LANGUAGE sql IMMUTABLE STRICT
    AS $$select a + b$$;


ALTER FUNCTION public.add(a integer, b integer) OWNER TO postgres;

--
-- Name: FUNCTION add(a integer, b integer); Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON FUNCTION public.add(a integer, b integer) IS 'adds';


--
-- Name: p(integer); Type: PROCEDURE; Schema: public; Owner: postgres
--

CREATE PROCEDURE public.p(INOUT x integer)
    LANGUAGE plpgsql
    AS $$ begin x := x + 1; end $$;


ALTER PROCEDURE public.p(INOUT x integer) OWNER TO postgres;

--
-- Name: touch(); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.touch() RETURNS trigger
    LANGUAGE plpgsql
    AS $$ begin new.note := coalesce(new.note, 'n'); return new; end $$;


ALTER FUNCTION public.touch() OWNER TO postgres;

SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: items; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.items (
    id integer NOT NULL,
    name text DEFAULT 'x'::text NOT NULL,
    price numeric(10,2) DEFAULT 0,
    code character varying(20),
    qty integer,
    tags text[],
    created date DEFAULT CURRENT_DATE,
    flag boolean,
    data jsonb,
    u uuid,
    ts timestamp with time zone,
    b bytea,
    f double precision,
    ch character(3),
    CONSTRAINT items_qty_check CHECK ((qty >= 0))
);


ALTER TABLE public.items OWNER TO postgres;

--
-- Name: TABLE items; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON TABLE public.items IS 'things we sell';


--
-- Name: COLUMN items.price; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON COLUMN public.items.price IS 'in euros';


--
-- Name: orders; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.orders (
    id integer NOT NULL,
    item integer NOT NULL,
    note text
);


ALTER TABLE public.orders OWNER TO postgres;

--
-- Name: item_orders; Type: VIEW; Schema: public; Owner: postgres
--

CREATE VIEW public.item_orders AS
 SELECT i.id,
    i.name,
    count(o.id) AS orders
   FROM (public.items i
     LEFT JOIN public.orders o ON ((o.item = i.id)))
  GROUP BY i.id, i.name;


ALTER TABLE public.item_orders OWNER TO postgres;

--
-- Name: VIEW item_orders; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON VIEW public.item_orders IS 'orders per item';


--
-- Name: busy_items; Type: VIEW; Schema: public; Owner: postgres
--

CREATE VIEW public.busy_items AS
 SELECT item_orders.id AS item_id,
    item_orders.name AS item_name
   FROM public.item_orders
  WHERE (item_orders.orders > 0);


ALTER TABLE public.busy_items OWNER TO postgres;

--
-- Name: counter; Type: SEQUENCE; Schema: public; Owner: postgres
--

CREATE SEQUENCE public.counter
    START WITH 5
    INCREMENT BY 2
    NO MINVALUE
    MAXVALUE 1000
    CACHE 1
    CYCLE;


ALTER TABLE public.counter OWNER TO postgres;

--
-- Name: events; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.events (
    id bigint NOT NULL,
    kind text NOT NULL
);


ALTER TABLE public.events OWNER TO postgres;

--
-- Name: events_id_seq; Type: SEQUENCE; Schema: public; Owner: postgres
--

ALTER TABLE public.events ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.events_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: later_counts; Type: MATERIALIZED VIEW; Schema: public; Owner: postgres
--

CREATE MATERIALIZED VIEW public.later_counts AS
 SELECT orders.item
   FROM public.orders
  WITH NO DATA;


ALTER TABLE public.later_counts OWNER TO postgres;

--
-- Name: order_counts; Type: MATERIALIZED VIEW; Schema: public; Owner: postgres
--

CREATE MATERIALIZED VIEW public.order_counts AS
 SELECT orders.item,
    count(*) AS n
   FROM public.orders
  GROUP BY orders.item
  WITH NO DATA;


ALTER TABLE public.order_counts OWNER TO postgres;

--
-- Name: orders_id_seq; Type: SEQUENCE; Schema: public; Owner: postgres
--

CREATE SEQUENCE public.orders_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


ALTER TABLE public.orders_id_seq OWNER TO postgres;

--
-- Name: orders_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: postgres
--

ALTER SEQUENCE public.orders_id_seq OWNED BY public.orders.id;


--
-- Name: scratch; Type: TABLE; Schema: public; Owner: postgres
--

CREATE UNLOGGED TABLE public.scratch (
    k bigint,
    v text
);


ALTER TABLE public.scratch OWNER TO postgres;

--
-- Name: orders id; Type: DEFAULT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.orders ALTER COLUMN id SET DEFAULT nextval('public.orders_id_seq'::regclass);


--
-- Data for Name: events; Type: TABLE DATA; Schema: public; Owner: postgres
--

COPY public.events (id, kind) FROM stdin;
1	start
2	stop
\.


--
-- Data for Name: items; Type: TABLE DATA; Schema: public; Owner: postgres
--

COPY public.items (id, name, price, code, qty, tags, created, flag, data, u, ts, b, f, ch) FROM stdin;
1	a	1.50	c1	3	{x,"y z"}	2024-01-02	t	{"k": [1, 2]}	a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11	2024-01-02 03:04:05+00	\\x0102	1.25	ab 
2	tab\there	0.00	\N	\N	\N	2026-11-26	\N	\N	\N	\N	\N	\N	\N
\.


--
-- Data for Name: orders; Type: TABLE DATA; Schema: public; Owner: postgres
--

COPY public.orders (id, item, note) FROM stdin;
1	1	n
2	2	n
\.


--
-- Data for Name: scratch; Type: TABLE DATA; Schema: public; Owner: postgres
--

COPY public.scratch (k, v) FROM stdin;
\.


--
-- Name: counter; Type: SEQUENCE SET; Schema: public; Owner: postgres
--

SELECT pg_catalog.setval('public.counter', 5, true);


--
-- Name: events_id_seq; Type: SEQUENCE SET; Schema: public; Owner: postgres
--

SELECT pg_catalog.setval('public.events_id_seq', 2, true);


--
-- Name: orders_id_seq; Type: SEQUENCE SET; Schema: public; Owner: postgres
--

SELECT pg_catalog.setval('public.orders_id_seq', 2, true);


--
-- Name: events events_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.events
    ADD CONSTRAINT events_pkey PRIMARY KEY (id);


--
-- Name: items items_code_key; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.items
    ADD CONSTRAINT items_code_key UNIQUE (code);


--
-- Name: items items_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.items
    ADD CONSTRAINT items_pkey PRIMARY KEY (id);


--
-- Name: orders orders_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.orders
    ADD CONSTRAINT orders_pkey PRIMARY KEY (id);


--
-- Name: items_code_name; Type: INDEX; Schema: public; Owner: postgres
--

CREATE UNIQUE INDEX items_code_name ON public.items USING btree (code, name);


--
-- Name: items_name; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX items_name ON public.items USING btree (name);


--
-- Name: order_counts_item; Type: INDEX; Schema: public; Owner: postgres
--

CREATE UNIQUE INDEX order_counts_item ON public.order_counts USING btree (item);


--
-- Name: orders orders_touch; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER orders_touch BEFORE INSERT OR UPDATE ON public.orders FOR EACH ROW EXECUTE FUNCTION public.touch();


--
-- Name: orders orders_item_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.orders
    ADD CONSTRAINT orders_item_fkey FOREIGN KEY (item) REFERENCES public.items(id) ON DELETE CASCADE;


--
-- Name: order_counts; Type: MATERIALIZED VIEW DATA; Schema: public; Owner: postgres
--

REFRESH MATERIALIZED VIEW public.order_counts;


--
-- PostgreSQL database dump complete
--


