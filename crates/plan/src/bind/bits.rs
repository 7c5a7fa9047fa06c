//! The operators of bit strings (`bit(n)`, `bit varying(n)`): each is a
//! call of its PostgreSQL function from the types crate's library
//! ([`nestor_types::bits`]), which also picks the result type (`bit` when
//! the operands are, else `bit varying`).
//!
//! ```text
//!   a || b   bitcat(a, b)       a & b    bitand(a, b)
//!   a | b    bitor(a, b)        a # b    bitxor(a, b)
//!   a << n   bitshiftleft(a, n) a >> n   bitshiftright(a, n)
//!   ~a       bitnot(a)
//! ```
//!
//! An unknown literal beside a bit string is one (`B'1' || '0'`); text on
//! either side of `||` keeps text concatenation (anytextcat), and `||` of
//! a bit string with anything else has no operator.

use nestor_common::DbError;
use nestor_types::bits::is_bits;
use nestor_types::DataType;

use super::Binder;
use crate::functions::Func;
use crate::ir::Expr;

/// The function of a binary bit string operator.
fn function(op: &str) -> Option<&'static str> {
    Some(match op {
        "||" => "bitcat",
        "&" => "bitand",
        "|" => "bitor",
        "#" => "bitxor",
        "<<" => "bitshiftleft",
        ">>" => "bitshiftright",
        _ => return None,
    })
}

/// Whether `l op r` is a bit string operator (its left side a bit
/// string, or for `||`/`&`/`|`/`#` either side with an unknown literal on
/// the other).
pub(super) fn is_bits_op(op: &str, l: DataType, r: DataType) -> bool {
    let Some(_) = function(op) else {
        return false;
    };
    match op {
        "<<" | ">>" => is_bits(l),
        _ => {
            (is_bits(l) && (is_bits(r) || r == DataType::Unknown))
                || (l == DataType::Unknown && is_bits(r))
        }
    }
}

impl Binder<'_> {
    /// `l op r` over bit strings (see [`is_bits_op`]).
    pub(super) fn bind_bits_op(
        &mut self,
        op: &str,
        (le, lt): (Expr, DataType),
        (re, rt): (Expr, DataType),
    ) -> Result<(Expr, DataType), DbError> {
        let name = function(op).expect("is_bits_op checked it");
        let r = nestor_types::functions::resolve(name, &[lt, rt])
            .map_err(|_| super::no_operator(op, lt, rt))?;
        let le = self.coerce(le, lt, r.arg_types[0])?;
        let re = self.coerce(re, rt, r.arg_types[1])?;
        Ok((Expr::Func(Func::Library(r.func), vec![le, re]), r.ret))
    }

    /// `~a` of a bit string.
    pub(super) fn bind_bits_not(
        &mut self,
        e: Expr,
        t: DataType,
    ) -> Result<(Expr, DataType), DbError> {
        let r = nestor_types::functions::resolve("bitnot", &[t])?;
        let e = self.coerce(e, t, r.arg_types[0])?;
        Ok((Expr::Func(Func::Library(r.func), vec![e]), r.ret))
    }
}
