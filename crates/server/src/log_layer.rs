//! The wire layer's own messages (`tracing` events: listening, shutdown,
//! replication, accept failures) in the server log's jsonlog format.
//!
//! With `--log-destination stderr` (the default) they keep going through
//! tracing_subscriber's text formatter, as before. With `jsonlog` this
//! layer takes its place and hands each event to `nestor_common::log`, so
//! every line on standard error is one JSON object with PostgreSQL's keys:
//! the level maps to PostgreSQL's severities (error → ERROR, warn →
//! WARNING, info → LOG, debug → DEBUG1, trace → DEBUG5), the message is
//! the event's formatted text with its other fields appended as
//! `name=value`, and an event on a session's thread carries the session's
//! fields (nestor_common::log::scoped).

use std::fmt::Write as _;

use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::layer::Context;
use tracing_subscriber::Layer;

/// Forwards events to the server log.
pub struct JsonLog;

impl<S: Subscriber> Layer<S> for JsonLog {
    fn on_event(&self, event: &Event<'_>, _ctx: Context<'_, S>) {
        let mut text = Text::default();
        event.record(&mut text);
        let message = if text.fields.is_empty() {
            text.message
        } else {
            format!("{}{}", text.message, text.fields)
        };
        nestor_common::log::write(&nestor_common::log::Line::new(
            severity(*event.metadata().level()),
            &message,
        ));
    }
}

fn severity(level: Level) -> &'static str {
    match level {
        Level::ERROR => "ERROR",
        Level::WARN => "WARNING",
        Level::INFO => "LOG",
        Level::DEBUG => "DEBUG1",
        Level::TRACE => "DEBUG5",
    }
}

/// An event's message and its other fields.
#[derive(Default)]
struct Text {
    message: String,
    fields: String,
}

impl Visit for Text {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            let _ = write!(self.message, "{value:?}");
        } else {
            let _ = write!(self.fields, " {}={value:?}", field.name());
        }
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.message.push_str(value);
        } else {
            let _ = write!(self.fields, " {}={value}", field.name());
        }
    }
}
