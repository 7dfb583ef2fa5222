//! Python values as scenario keys (TOML), and JSON written as the command line writes it.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

/// `value` as a TOML value: bool, int, float, str, list or tuple of values, dict of str to
/// values (an inline table). Anything else (None among them) is a TypeError naming it.
pub(crate) fn toml_value(value: &Bound<'_, PyAny>) -> PyResult<toml::Value> {
    if value.is_instance_of::<PyBool>() {
        return Ok(toml::Value::Boolean(value.extract()?));
    }
    if value.is_instance_of::<PyInt>()
        || value.hasattr("__index__")? && !value.is_instance_of::<PyFloat>()
    {
        return match value.extract::<i64>() {
            Ok(i) => Ok(toml::Value::Integer(i)),
            Err(_) => Err(PyValueError::new_err(format!(
                "{} does not fit a scenario's integers (64 bits, signed)",
                value.str()?
            ))),
        };
    }
    if value.is_instance_of::<PyFloat>() {
        return Ok(toml::Value::Float(value.extract()?));
    }
    if let Ok(s) = value.cast::<PyString>() {
        return Ok(toml::Value::String(s.extract::<String>()?));
    }
    if value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>() {
        let mut out = Vec::new();
        for item in value.try_iter()? {
            out.push(toml_value(&item?)?);
        }
        return Ok(toml::Value::Array(out));
    }
    if let Ok(d) = value.cast::<PyDict>() {
        let mut t = toml::Table::new();
        for (k, v) in d.iter() {
            let key: String = k.extract().map_err(|_| {
                PyTypeError::new_err(format!(
                    "a scenario's keys are strings, not {}",
                    k.get_type()
                        .name()
                        .map(|n| n.to_string())
                        .unwrap_or_default()
                ))
            })?;
            t.insert(key, toml_value(&v)?);
        }
        return Ok(toml::Value::Table(t));
    }
    let kind = value.get_type().name()?.to_string();
    Err(PyTypeError::new_err(format!(
        "{} ({kind}) has no TOML value: a scenario's values are bool, int, float, str, and lists \
         and dicts of them",
        value.repr()?
    )))
}

/// `value` as the TOML literal `--set KEY=VALUE` takes (`[8, 8, 8]`, `"8 GB/s"`, `512`).
#[pyfunction]
pub(crate) fn literal(value: &Bound<'_, PyAny>) -> PyResult<String> {
    Ok(toml_value(value)?.to_string())
}

/// `table` (a dict of scenario keys: `{"network": {"dims": [8, 8]}, "workload": {...}}`) as a
/// TOML document, a `[section]` per table.
#[pyfunction]
pub(crate) fn toml_document(table: &Bound<'_, PyDict>) -> PyResult<String> {
    match toml_value(table.as_any())? {
        toml::Value::Table(t) => {
            toml::to_string(&t).map_err(|e| PyValueError::new_err(e.to_string()))
        }
        _ => unreachable!("a dict is a table"),
    }
}

/// A Python value seen by serde: what the summary's JSON is made of (dict, list, str, int,
/// float, bool, None), written in the order the dicts hold.
struct Json<'a, 'py>(&'a Bound<'py, PyAny>);

impl serde::Serialize for Json<'_, '_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{Error, SerializeMap, SerializeSeq};
        let v = self.0;
        let fail = |e: PyErr| S::Error::custom(e.to_string());
        if v.is_none() {
            return s.serialize_unit();
        }
        if v.is_instance_of::<PyBool>() {
            return s.serialize_bool(v.extract().map_err(fail)?);
        }
        if v.is_instance_of::<PyInt>() {
            if let Ok(u) = v.extract::<u64>() {
                return s.serialize_u64(u);
            }
            return s.serialize_i64(v.extract().map_err(fail)?);
        }
        if v.is_instance_of::<PyFloat>() {
            return s.serialize_f64(v.extract().map_err(fail)?);
        }
        if let Ok(text) = v.cast::<PyString>() {
            return s.serialize_str(&text.extract::<String>().map_err(fail)?);
        }
        if let Ok(d) = v.cast::<PyDict>() {
            let mut m = s.serialize_map(Some(d.len()))?;
            for (k, x) in d.iter() {
                let k: String = k
                    .extract()
                    .map_err(|_| S::Error::custom("a key is not a str"))?;
                m.serialize_entry(&k, &Json(&x))?;
            }
            return m.end();
        }
        if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
            let items: Vec<Bound<'_, PyAny>> = v
                .try_iter()
                .map_err(fail)?
                .collect::<PyResult<_>>()
                .map_err(fail)?;
            let mut q = s.serialize_seq(Some(items.len()))?;
            for x in &items {
                q.serialize_element(&Json(x))?;
            }
            return q.end();
        }
        Err(S::Error::custom(format!(
            "{} is not JSON",
            v.get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_default()
        )))
    }
}

/// `value` as JSON, written as `mgensim run --json` writes its summary (two-space indents,
/// floats in their shortest form, `0.000012` not `1.2e-05`), final line break included:
/// `dumps(result.summary)` is the command line's output byte for byte.
#[pyfunction]
pub(crate) fn dumps(value: &Bound<'_, PyAny>) -> PyResult<String> {
    serde_json::to_string_pretty(&Json(value))
        .map(|s| s + "\n")
        .map_err(|e| PyTypeError::new_err(e.to_string()))
}
