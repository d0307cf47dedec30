//! The page's language: the switch for pages sent without code, the cookie every page is
//! rendered by, and the strings file each language's code reads.

use axum::http::{header, HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Redirect, Response};

use crate::domain::FieldError;
use crate::server::error::LabError;

/// `POST /lang`, the language switch of a page sent without code (app/mod.rs, `SERVER_ONLY`),
/// a plain form: keeps the language in the cookie the pages are rendered by and sends the browser
/// back (303) to the address it came from, now in that language. A language the course does not
/// speak, or a way back that leaves this site, is refused with a problem and sets nothing.
pub(super) async fn choose_language(
    form: Result<axum::Form<LangChoice>, axum::extract::rejection::FormRejection>,
) -> Result<Response, LabError> {
    let axum::Form(choice) =
        form.map_err(|e| FieldError::new("lang", format!("expected a form naming lang: {e}")))?;
    let lang = crate::app::i18n::Lang::parse(choice.lang.trim()).ok_or_else(|| {
        FieldError::new(
            "lang",
            format!("expected \"bn\" or \"en\", not {:?}", choice.lang),
        )
    })?;
    let back = choice.back.unwrap_or_else(|| "/".to_owned());
    if !local_path(&back) {
        return Err(FieldError::new(
            "back",
            format!("expected a path on this site, such as \"/glossary\", not {back:?}"),
        )
        .into());
    }
    let cookie = HeaderValue::from_str(&lang.cookie())
        .map_err(|e| FieldError::new("lang", e.to_string()))?;
    Ok(([(header::SET_COOKIE, cookie)], Redirect::to(&back)).into_response())
}

/// `?lang=en|bn` on any page: the page is drawn in that language, and the browser keeps it
/// (the language cookie is set, as the switch sets it), so a test or a shared link needs no
/// click. The pin stands before any cookie the request carries. Another value is 400
/// `invalid-field`, naming `lang`. Pages only: the API, the server functions and the files
/// are not drawn in a language.
pub(super) async fn pin_language(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    use crate::app::i18n::{Lang, LANG_COOKIE};
    let path = request.uri().path();
    let page = request.method() == axum::http::Method::GET
        && !["/api/", "/rpc/", "/pkg/", "/strings/"]
            .iter()
            .any(|p| path.starts_with(p));
    let asked = page.then(|| request.uri().query()).flatten().and_then(|q| {
        q.split('&')
            .filter_map(|pair| pair.split_once('='))
            .find(|(name, _)| *name == "lang")
            .map(|(_, value)| value.to_owned())
    });
    let Some(asked) = asked else {
        return next.run(request).await;
    };
    let Some(lang) = Lang::parse(&asked) else {
        return LabError::from(FieldError::new(
            "lang",
            format!("expected \"bn\" or \"en\", not {asked:?}"),
        ))
        .into_response();
    };
    let mut request = request;
    let others: String = request
        .headers()
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .map(|v| format!("; {v}"))
        .collect();
    if let Ok(cookie) = HeaderValue::from_str(&format!("{LANG_COOKIE}={}{others}", lang.id())) {
        request.headers_mut().insert(header::COOKIE, cookie);
    }
    let mut response = next.run(request).await;
    if let Ok(cookie) = HeaderValue::from_str(&lang.cookie()) {
        response.headers_mut().append(header::SET_COOKIE, cookie);
    }
    response
}

#[derive(serde::Deserialize)]
pub(super) struct LangChoice {
    lang: String,
    back: Option<String>,
}

/// A path on this site: it starts with one `/` (not `//` or `/\`, which a browser reads as
/// another host) and holds no control characters.
pub(super) fn local_path(path: &str) -> bool {
    path.starts_with('/')
        && !path.starts_with("//")
        && !path.starts_with("/\\")
        && path.len() <= 2048
        && !path.chars().any(char::is_control)
}

/// `GET /strings/{lang}.{version}.ftl`: one language's sentences, which a page fetches before it
/// hydrates (app/i18n.rs). Compressed once, at brotli's best, for a browser that takes brotli;
/// the others get them as text, which the compression layer gzips.
pub(super) async fn strings_file(
    axum::extract::Path(file): axum::extract::Path<String>,
    headers: HeaderMap,
) -> Response {
    use crate::app::i18n::{strings, Lang};
    use std::sync::OnceLock;
    static BROTLI: [OnceLock<Vec<u8>>; 2] = [OnceLock::new(), OnceLock::new()];

    let Some(lang) = file
        .strip_suffix(".ftl")
        .and_then(|rest| rest.split_once('.'))
        .filter(|(_, version)| *version == strings::version())
        .and_then(|(lang, _)| Lang::parse(lang))
    else {
        return axum::http::StatusCode::NOT_FOUND.into_response();
    };
    let text = strings::browser_source(lang);
    let content_type = (header::CONTENT_TYPE, "text/plain; charset=utf-8");
    let takes_brotli = headers
        .get_all(header::ACCEPT_ENCODING)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|coding| coding.split(';').next().is_some_and(|c| c.trim() == "br"));
    if !takes_brotli {
        return ([content_type], text).into_response();
    }
    let slot = &BROTLI[usize::from(lang == Lang::En)];
    let body = match slot.get() {
        Some(body) => body.clone(),
        None => {
            let body = tokio::task::spawn_blocking(move || {
                let mut out = Vec::new();
                let params = brotli::enc::BrotliEncoderParams {
                    quality: 11,
                    lgwin: 22,
                    ..Default::default()
                };
                let _ = brotli::BrotliCompress(&mut text.as_bytes(), &mut out, &params);
                out
            })
            .await
            .unwrap_or_default();
            slot.get_or_init(|| body).clone()
        }
    };
    ([content_type, (header::CONTENT_ENCODING, "br")], body).into_response()
}
