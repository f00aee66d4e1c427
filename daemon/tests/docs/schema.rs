//! The shape of a serde type, read from its own `Deserialize` implementation: every struct
//! field as a dotted path, which paths are free maps, and the variants of every enum.
//!
//! A [`Walker`] is a `Deserializer` that answers each request with the smallest value of the
//! asked type, recording what was asked: `deserialize_struct` names the fields (the
//! `rename`s and `deny_unknown_fields` of the type included), `deserialize_enum` names the
//! variants, `deserialize_map` marks a free map. So the documentation tests compare the docs
//! with what the code really accepts, not with a list kept by hand.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fmt;

use serde::de::value::BorrowedStrDeserializer;
use serde::de::{
    self, DeserializeSeed, Deserializer, EnumAccess, IntoDeserializer, MapAccess, SeqAccess,
    VariantAccess, Visitor,
};

/// What a path of the type is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Shape {
    /// A struct: its fields are further paths.
    Struct,
    /// A map with free keys (`[match.tags]`).
    Map,
    /// A value; for an enum, its variants as spelt in the input.
    Value(Vec<String>),
}

/// Every path of a type and its shape, e.g. `board.driver` → `Value(["dgt", ...])`.
pub(crate) type Schema = BTreeMap<String, Shape>;

/// The schema of `T`.
///
/// # Panics
///
/// When `T` asks for something the walker cannot answer (the panic names the path).
pub(crate) fn schema<T: de::DeserializeOwned>() -> Schema {
    let out = RefCell::new(Schema::new());
    if let Err(e) = T::deserialize(Walker {
        path: "",
        out: &out,
    }) {
        // An alert's one-click `choices` carry an operator action (an internally tagged
        // enum, documented with the actions): it is the last field of an event, recorded
        // as a value, and the walk ends there.
        if !e.0.starts_with(&format!("{OPAQUE}: ")) {
            panic!("walking the type: {e}");
        }
        out.borrow_mut()
            .insert(OPAQUE.to_owned(), Shape::Value(Vec::new()));
    }
    out.into_inner()
}

/// The one self-describing value the walker records without walking it.
const OPAQUE: &str = "choices.post";

#[derive(Debug)]
pub(crate) struct Error(String);

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

impl de::Error for Error {
    fn custom<M: fmt::Display>(msg: M) -> Self {
        Error(msg.to_string())
    }
}

#[derive(Clone, Copy)]
struct Walker<'a> {
    path: &'a str,
    out: &'a RefCell<Schema>,
}

impl Walker<'_> {
    fn record(&self, shape: Shape) {
        if !self.path.is_empty() {
            self.out.borrow_mut().insert(self.path.to_owned(), shape);
        }
    }

    fn child(&self, field: &str) -> String {
        if self.path.is_empty() {
            field.to_owned()
        } else {
            format!("{}.{field}", self.path)
        }
    }
}

/// Serde's private wrappers (`toml::Spanned`) are structs named `$__...`: they are walked
/// through, not recorded.
fn is_private(name: &str) -> bool {
    name.starts_with("$__")
}

macro_rules! leaf {
    ($($method:ident => $visit:ident($($value:expr)?)),* $(,)?) => {
        $(fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
            self.record(Shape::Value(Vec::new()));
            visitor.$visit($($value)?)
        })*
    };
}

impl<'de> Deserializer<'de> for Walker<'_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value, Error> {
        Err(Error(format!(
            "{}: a self-describing value the walker cannot guess",
            self.path
        )))
    }

    leaf! {
        deserialize_bool => visit_bool(false),
        deserialize_i8 => visit_i64(0),
        deserialize_i16 => visit_i64(0),
        deserialize_i32 => visit_i64(0),
        deserialize_i64 => visit_i64(0),
        deserialize_u8 => visit_u64(0),
        deserialize_u16 => visit_u64(0),
        deserialize_u32 => visit_u64(0),
        deserialize_u64 => visit_u64(0),
        deserialize_f32 => visit_f64(0.0),
        deserialize_f64 => visit_f64(0.0),
        deserialize_char => visit_char('x'),
        deserialize_str => visit_str(""),
        deserialize_string => visit_str(""),
        deserialize_bytes => visit_bytes(&[]),
        deserialize_byte_buf => visit_bytes(&[]),
        deserialize_unit => visit_unit(),
        deserialize_identifier => visit_str(""),
        deserialize_ignored_any => visit_unit(),
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_some(self)
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        // One element, at the same path: `[[board]]` tables are `board.<field>`.
        visitor.visit_seq(One { walker: Some(self) })
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.record(Shape::Map);
        visitor.visit_map(Fields {
            walker: self,
            fields: &[],
            next: 0,
            private: false,
        })
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        let private = is_private(name);
        if !private {
            self.record(Shape::Struct);
        }
        visitor.visit_map(Fields {
            walker: self,
            fields,
            next: 0,
            private,
        })
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.record(Shape::Value(
            variants.iter().map(|v| (*v).to_owned()).collect(),
        ));
        let first = variants
            .first()
            .ok_or_else(|| Error(format!("{}: an enum without variants", self.path)))?;
        visitor.visit_enum(Unit(first))
    }
}

struct One<'a> {
    walker: Option<Walker<'a>>,
}

impl<'de> SeqAccess<'de> for One<'_> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        match self.walker.take() {
            Some(w) => seed.deserialize(w).map(Some),
            None => Ok(None),
        }
    }
}

struct Fields<'a> {
    walker: Walker<'a>,
    fields: &'static [&'static str],
    next: usize,
    private: bool,
}

impl<'de> MapAccess<'de> for Fields<'_> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        let Some(field) = self.fields.get(self.next) else {
            return Ok(None);
        };
        seed.deserialize(BorrowedStrDeserializer::new(field))
            .map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        let field = self.fields[self.next];
        self.next += 1;
        if self.private {
            // A wrapper's own fields (a span's start and end) are numbers; its value is
            // the wrapped field itself.
            if field.ends_with("value") {
                return seed.deserialize(self.walker);
            }
            return seed.deserialize(0u64.into_deserializer());
        }
        let path = self.walker.child(field);
        seed.deserialize(Walker {
            path: &path,
            out: self.walker.out,
        })
    }
}

struct Unit(&'static str);

impl<'de> EnumAccess<'de> for Unit {
    type Error = Error;
    type Variant = Self;

    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self), Error> {
        let v = seed.deserialize(BorrowedStrDeserializer::<Error>::new(self.0))?;
        Ok((v, self))
    }
}

impl<'de> VariantAccess<'de> for Unit {
    type Error = Error;

    fn unit_variant(self) -> Result<(), Error> {
        Ok(())
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, _seed: T) -> Result<T::Value, Error> {
        Err(Error(format!("variant {}: not a unit variant", self.0)))
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, _visitor: V) -> Result<V::Value, Error> {
        Err(Error(format!("variant {}: not a unit variant", self.0)))
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        _visitor: V,
    ) -> Result<V::Value, Error> {
        Err(Error(format!("variant {}: not a unit variant", self.0)))
    }
}
