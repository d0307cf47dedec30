//! The pieces every typed body is made of: whole numbers that carry their range
//! ([`bounded!`]), changes where a field left out means "leave it" ([`patch!`]), and
//! [`read_body`], which reads a JSON body into one of them and names the first bad field.
//!
//! A body's type is its whole check: the handlers, the server functions and a rerun's inputs
//! read the same type, and the OpenAPI schema is derived from it (docs/reference.md §8).

use serde::de::DeserializeOwned;

use super::FieldError;

/// A whole number outside the range its field accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{value} is out of range: expected {min} to {max}")]
pub struct OutOfRange {
    pub value: i64,
    pub min: i64,
    pub max: i64,
}

/// A whole number in `MIN..=MAX`: made with `TryFrom<i64>`, read from JSON the same way, and
/// written to JSON (and to its schema) as a plain integer.
macro_rules! bounded {
    ($(#[$meta:meta])* $name:ident, $min:expr, $max:expr) => {
        $(#[$meta])*
        #[derive(
            Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash,
            serde::Serialize, serde::Deserialize,
        )]
        #[serde(try_from = "i64", into = "i64")]
        pub struct $name(i64);

        impl $name {
            pub const MIN: i64 = $min;
            pub const MAX: i64 = $max;

            pub const fn get(self) -> i64 {
                self.0
            }

            /// A constant in range; out of range, a constant's evaluation fails to compile.
            pub const fn of(value: i64) -> Self {
                assert!($name::MIN <= value && value <= $name::MAX);
                $name(value)
            }
        }

        impl TryFrom<i64> for $name {
            type Error = $crate::domain::typed::OutOfRange;

            fn try_from(value: i64) -> Result<Self, Self::Error> {
                if ($name::MIN..=$name::MAX).contains(&value) {
                    Ok($name(value))
                } else {
                    Err($crate::domain::typed::OutOfRange {
                        value,
                        min: $name::MIN,
                        max: $name::MAX,
                    })
                }
            }
        }

        impl From<$name> for i64 {
            fn from(n: $name) -> i64 {
                n.0
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                self.0.fmt(f)
            }
        }

        #[cfg(feature = "ssr")]
        impl utoipa::PartialSchema for $name {
            fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
                use utoipa::openapi::schema::{ObjectBuilder, Type};
                ObjectBuilder::new()
                    .schema_type(Type::Integer)
                    .minimum(Some($name::MIN))
                    .maximum(Some($name::MAX))
                    .into()
            }
        }

        #[cfg(feature = "ssr")]
        impl utoipa::ToSchema for $name {}
    };
}
pub(crate) use bounded;

/// A change to some settings: every field optional, a field left out is left as it is, `null`
/// and unknown fields are refused. Serialises with only the fields it sets, so the JSON it
/// was read from is the JSON it writes back (a run's input, an event's details).
macro_rules! patch {
    ($(#[$meta:meta])* pub struct $name:ident {
        $($(#[$fmeta:meta])* $field:ident: $ty:ty,)*
    }) => {
        $(#[$meta])*
        #[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
        #[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
        #[serde(deny_unknown_fields)]
        pub struct $name {
            $(
                $(#[$fmeta])*
                #[serde(
                    default,
                    deserialize_with = "crate::domain::typed::present",
                    skip_serializing_if = "Option::is_none"
                )]
                #[cfg_attr(feature = "ssr", schema(nullable = false))]
                pub $field: Option<$ty>,
            )*
        }

        impl $name {
            /// Whether this change changes nothing.
            pub fn is_empty(&self) -> bool {
                *self == $name::default()
            }
        }
    };
}
pub(crate) use patch;

/// A field of a [`patch!`] that is present: its value, never `null`.
pub fn present<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::Deserialize<'de>,
{
    T::deserialize(d).map(Some)
}

/// Reads a JSON object into `T`, or names the first field that does not fit (dotted for a
/// nested one: `crash.api_after_claim`) and says why.
pub fn read_body<T: DeserializeOwned>(body: &serde_json::Value) -> Result<T, FieldError> {
    super::expect_object(body)?;
    serde_path_to_error::deserialize(body).map_err(|e| {
        let path = e.path().to_string();
        let message = e.into_inner().to_string();
        // A field left out is named by the field, not by the object it is missing from.
        let missing = message
            .strip_prefix("missing field `")
            .and_then(|m| m.strip_suffix('`'));
        let field = match (path.as_str(), missing) {
            (".", Some(name)) => name.to_owned(),
            (".", None) => "(body)".to_owned(),
            (_, Some(name)) => format!("{path}.{name}"),
            (_, None) => path,
        };
        FieldError::new(field, message)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    bounded!(Small, 1, 3);
    patch! {
        pub struct Change {
            small: Small,
            on: bool,
            inner: Inner,
        }
    }

    #[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
    #[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
    pub struct Inner {
        x: i64,
    }

    #[test]
    fn a_bounded_number_keeps_its_range() {
        assert_eq!(Small::try_from(2).map(Small::get), Ok(2));
        assert_eq!(
            Small::try_from(4).unwrap_err().to_string(),
            "4 is out of range: expected 1 to 3"
        );
        assert_eq!(
            serde_json::to_value(Small::try_from(3).unwrap()).unwrap(),
            json!(3)
        );
    }

    #[test]
    fn a_patch_reads_what_it_names_and_writes_it_back() {
        let c: Change = read_body(&json!({"small": 2})).unwrap();
        assert_eq!(c.small.map(Small::get), Some(2));
        assert_eq!(c.on, None);
        assert_eq!(serde_json::to_value(&c).unwrap(), json!({"small": 2}));
        assert!(read_body::<Change>(&json!({})).unwrap().is_empty());
        assert!(!c.is_empty());
    }

    #[test]
    fn a_bad_patch_names_the_field() {
        for (body, field) in [
            (json!({"small": 0}), "small"),
            (json!({"small": 1.5}), "small"),
            (json!({"small": null}), "small"),
            (json!({"on": "yes"}), "on"),
            (json!({"large": 1}), "large"),
            (json!([1, true]), "(body)"),
            (json!("small"), "(body)"),
            (json!({"inner": {}}), "inner.x"),
        ] {
            let e = read_body::<Change>(&body).unwrap_err();
            assert_eq!(e.field, field, "{body}: {e}");
        }
    }
}
