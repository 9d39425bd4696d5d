//! SOAP 1.1 on `/soap`, as the study (actix-web + quick-xml): one document/literal operation,
//! `GetPayload(size)`, answering a `message` of exactly `size` bytes inside the envelope. The
//! envelope is parsed and the answer written per call, which is the work a SOAP server does.
//! `GET /soap?wsdl` serves the WSDL, with this server's address, so a stock client can call it.
//!
//! Errors are SOAP Faults with HTTP 500 (SOAP 1.1 §6.2): `Client` for what the caller must fix
//! (malformed XML, a wrong SOAPAction or content type, an unknown operation, a bad size),
//! `VersionMismatch` for an envelope in another namespace, `MustUnderstand` for a mandatory header
//! entry, `Server` for what went wrong here.

use actix_web::http::header::{self, HeaderValue};
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use quick_xml::escape::{escape, resolve_predefined_entity};
use quick_xml::events::{BytesStart, Event};
use quick_xml::name::{Namespace, ResolveResult};
use quick_xml::NsReader;

use crate::routes::{message, PAYLOAD_MAX};

pub const ENVELOPE_NS: &str = "http://schemas.xmlsoap.org/soap/envelope/";
pub const SERVICE_NS: &str = "urn:wirebench:payload";
pub const GET_PAYLOAD_ACTION: &str = "urn:wirebench:payload/GetPayload";
/// Request envelopes are small; a larger body is refused with 413 before it is read.
pub const BODY_LIMIT: usize = 64 << 10;
const XML: &str = "text/xml; charset=utf-8";

/// Mounts `/soap`: POST for calls, `GET /soap?wsdl` for the description.
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource("/soap")
            .app_data(web::PayloadConfig::new(BODY_LIMIT))
            .route(web::post().to(call))
            .route(web::get().to(wsdl))
            .route(web::head().to(wsdl)),
    );
}

/// Why a call failed, as a SOAP 1.1 fault.
#[derive(Debug, PartialEq)]
pub struct Fault {
    pub code: &'static str,
    pub message: String,
}

impl Fault {
    fn client(message: impl Into<String>) -> Fault {
        Fault { code: "Client", message: message.into() }
    }
}

async fn call(req: HttpRequest, body: web::Bytes) -> HttpResponse {
    match answer(&req, &body) {
        Ok(body) => xml(StatusCode::OK, body),
        Err(fault) => xml(StatusCode::INTERNAL_SERVER_ERROR, fault_envelope(&fault)),
    }
}

fn answer(req: &HttpRequest, body: &[u8]) -> Result<Vec<u8>, Fault> {
    let content_type = req.headers().get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("");
    if !content_type.split(';').next().unwrap_or("").trim().eq_ignore_ascii_case("text/xml") {
        return Err(Fault::client(format!("Content-Type must be text/xml for SOAP 1.1, not `{content_type}`")));
    }
    let size = get_payload_size(body)?;
    // SOAP 1.1 §6.1.1: the header is required; "" means "the request URI says it".
    let Some(action) = req.headers().get("SOAPAction") else {
        return Err(Fault::client("the SOAPAction header is missing"));
    };
    let action = action.to_str().unwrap_or("?");
    let unquoted = action.trim().trim_matches('"');
    if !unquoted.is_empty() && unquoted != GET_PAYLOAD_ACTION {
        return Err(Fault::client(format!(
            "SOAPAction `{action}` does not name GetPayload (`\"{GET_PAYLOAD_ACTION}\"`)"
        )));
    }
    Ok(get_payload_response(size))
}

/// Parses a `GetPayload` call and returns its size. Elements of the operation may be qualified
/// with the service namespace (as the WSDL's schema says) or unqualified.
pub fn get_payload_size(body: &[u8]) -> Result<usize, Fault> {
    let malformed = |e: &dyn std::fmt::Display| Fault::client(format!("malformed XML: {e}"));
    let mut reader = NsReader::from_reader(body);
    reader.config_mut().trim_text(true);
    // Path of (namespace, local name) from the root to the current element.
    let mut path: Vec<(Option<String>, String)> = Vec::new();
    let mut size_text: Option<String> = None;
    let mut in_size = false;
    let mut operation_seen = false;
    loop {
        let (resolved, event) = reader.read_resolved_event().map_err(|e| malformed(&e))?;
        let namespace = match resolved {
            ResolveResult::Bound(Namespace(ns)) => Some(ns.to_owned()),
            ResolveResult::Unbound => None,
            ResolveResult::Unknown(p) => return Err(Fault::client(format!("undeclared namespace prefix `{p}`"))),
        };
        match event {
            Event::Start(ref e) | Event::Empty(ref e) => {
                let empty = matches!(event, Event::Empty(_));
                let local = e.local_name().as_ref().to_owned();
                check_element(&path, namespace.as_deref(), &local, e, &mut operation_seen)?;
                in_size = path.len() == 3 && path[1].1 == "Body" && local == "size";
                if !empty {
                    path.push((namespace, local));
                } else if in_size {
                    size_text = Some(String::new());
                    in_size = false;
                }
            }
            Event::End(_) => {
                path.pop();
                in_size = false;
            }
            Event::Text(t) if in_size => {
                size_text.get_or_insert_with(String::new).push_str(&t);
            }
            // An element's text is its character data, references and CDATA sections together
            // (XML 1.0 §2.4, §2.7, §4.1): `1&#48;24` and `<![CDATA[1024]]>` are both "1024".
            // quick-xml reports references and CDATA as events of their own.
            Event::GeneralRef(r) if in_size => {
                let text = match r.resolve_char_ref() {
                    Ok(Some(c)) => c.to_string(),
                    Ok(None) => match resolve_predefined_entity(&r) {
                        Some(s) => s.to_string(),
                        // Without a DTD (refused below) no other entity can be declared: XML 1.0 §4.1, WFC: Entity Declared.
                        None => return Err(Fault::client(format!("undeclared entity `&{};` in size", &*r))),
                    },
                    Err(e) => return Err(malformed(&e)),
                };
                size_text.get_or_insert_with(String::new).push_str(&text);
            }
            Event::CData(c) if in_size => {
                size_text.get_or_insert_with(String::new).push_str(&c.xml10_content());
            }
            Event::Text(t) if path.is_empty() && !t.trim().is_empty() => {
                return Err(Fault::client("the root element must be soap:Envelope, not text"));
            }
            Event::Text(t) if path.len() < 3 && !t.trim().is_empty() => {
                return Err(Fault::client("text outside the operation element"));
            }
            Event::DocType(_) => return Err(Fault::client("a SOAP message must not contain a DTD")),
            Event::Eof => break,
            _ => {}
        }
    }
    if !operation_seen {
        return Err(Fault::client("the envelope has no soap:Body with an operation"));
    }
    let text = size_text.ok_or_else(|| Fault::client("GetPayload needs a `size` element"))?;
    match text.trim().parse::<usize>() {
        Ok(size) if size <= PAYLOAD_MAX => Ok(size),
        _ => Err(Fault::client(format!("size must be an integer between 0 and {PAYLOAD_MAX}, not `{}`", text.trim()))),
    }
}

/// Checks one opening element against the place it appears in: Envelope, Header or Body, the
/// operation, its `size`.
fn check_element(
    path: &[(Option<String>, String)],
    namespace: Option<&str>,
    local: &str,
    e: &BytesStart,
    operation_seen: &mut bool,
) -> Result<(), Fault> {
    let envelope_ns = namespace == Some(ENVELOPE_NS);
    if path.len() >= 3 && path[1].1 == "Header" {
        return Ok(()); // inside a header entry: the entry's own business
    }
    match path.len() {
        0 if local == "Envelope" && !envelope_ns => {
            Err(Fault { code: "VersionMismatch", message: format!("the envelope's namespace must be {ENVELOPE_NS}") })
        }
        0 if local != "Envelope" => Err(Fault::client("the root element must be soap:Envelope")),
        0 => Ok(()),
        1 if envelope_ns && (local == "Header" || local == "Body") => Ok(()),
        1 => Err(Fault::client(format!("unexpected `{local}` in soap:Envelope"))),
        2 if path[1].1 == "Header" => {
            let must = e
                .attributes()
                .flatten()
                .any(|a| a.key.local_name().as_ref() == "mustUnderstand" && matches!(a.value.as_ref(), "1" | "true"));
            if must {
                Err(Fault { code: "MustUnderstand", message: format!("header entry `{local}` is not understood") })
            } else {
                Ok(())
            }
        }
        2 if *operation_seen => Err(Fault::client("soap:Body must hold exactly one operation")),
        2 if namespace == Some(SERVICE_NS) && local == "GetPayload" => {
            *operation_seen = true;
            Ok(())
        }
        2 => Err(Fault::client(format!("unknown operation `{{{}}}{local}`", namespace.unwrap_or("")))),
        3 if local == "size" && (namespace.is_none() || namespace == Some(SERVICE_NS)) => Ok(()),
        3 => Err(Fault::client(format!("unexpected `{local}` in GetPayload"))),
        _ => Err(Fault::client(format!("unexpected `{local}` inside `{}`", path.last().map_or("", |p| p.1.as_str())))),
    }
}

/// The response envelope, written per call with the (cached) message escaped as XML text.
pub fn get_payload_response(size: usize) -> Vec<u8> {
    const HEAD: &str = concat!(
        r#"<?xml version="1.0" encoding="utf-8"?>"#,
        r#"<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>"#,
        r#"<GetPayloadResponse xmlns="urn:wirebench:payload"><message>"#
    );
    const TAIL: &str = "</message></GetPayloadResponse></soap:Body></soap:Envelope>";
    let message = message(size);
    let text = escape(&*message);
    let mut out = Vec::with_capacity(HEAD.len() + text.len() + TAIL.len());
    out.extend_from_slice(HEAD.as_bytes());
    out.extend_from_slice(text.as_bytes());
    out.extend_from_slice(TAIL.as_bytes());
    out
}

fn fault_envelope(fault: &Fault) -> Vec<u8> {
    format!(
        concat!(
            r#"<?xml version="1.0" encoding="utf-8"?>"#,
            r#"<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><soap:Fault>"#,
            "<faultcode>soap:{}</faultcode><faultstring>{}</faultstring>",
            "</soap:Fault></soap:Body></soap:Envelope>"
        ),
        fault.code,
        escape(fault.message.as_str())
    )
    .into_bytes()
}

fn xml(status: StatusCode, body: Vec<u8>) -> HttpResponse {
    HttpResponse::build(status).insert_header((header::CONTENT_TYPE, HeaderValue::from_static(XML))).body(body)
}

async fn wsdl(req: HttpRequest) -> HttpResponse {
    if !req.query_string().eq_ignore_ascii_case("wsdl") {
        return HttpResponse::BadRequest()
            .content_type("text/plain")
            .body("GET /soap?wsdl gives the service description; calls are POST /soap");
    }
    let info = req.connection_info();
    let location = format!("{}://{}/soap", info.scheme(), info.host());
    xml(StatusCode::OK, describe(&location).into_bytes())
}

/// The WSDL 1.1 document (document/literal, SOAP 1.1 over HTTP) with the service at `location`.
pub fn describe(location: &str) -> String {
    format!(
        r#"<?xml version="1.0" encoding="utf-8"?>
<wsdl:definitions name="PayloadService" targetNamespace="{SERVICE_NS}"
    xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/" xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/"
    xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:tns="{SERVICE_NS}">
  <wsdl:types>
    <xsd:schema targetNamespace="{SERVICE_NS}" elementFormDefault="qualified">
      <xsd:element name="GetPayload">
        <xsd:complexType><xsd:sequence><xsd:element name="size" type="xsd:int"/></xsd:sequence></xsd:complexType>
      </xsd:element>
      <xsd:element name="GetPayloadResponse">
        <xsd:complexType><xsd:sequence><xsd:element name="message" type="xsd:string"/></xsd:sequence></xsd:complexType>
      </xsd:element>
    </xsd:schema>
  </wsdl:types>
  <wsdl:message name="GetPayloadRequest"><wsdl:part name="parameters" element="tns:GetPayload"/></wsdl:message>
  <wsdl:message name="GetPayloadResponse"><wsdl:part name="parameters" element="tns:GetPayloadResponse"/></wsdl:message>
  <wsdl:portType name="PayloadPortType">
    <wsdl:operation name="GetPayload">
      <wsdl:input message="tns:GetPayloadRequest"/>
      <wsdl:output message="tns:GetPayloadResponse"/>
    </wsdl:operation>
  </wsdl:portType>
  <wsdl:binding name="PayloadBinding" type="tns:PayloadPortType">
    <soap:binding style="document" transport="http://schemas.xmlsoap.org/soap/http"/>
    <wsdl:operation name="GetPayload">
      <soap:operation soapAction="{GET_PAYLOAD_ACTION}"/>
      <wsdl:input><soap:body use="literal"/></wsdl:input>
      <wsdl:output><soap:body use="literal"/></wsdl:output>
    </wsdl:operation>
  </wsdl:binding>
  <wsdl:service name="PayloadService">
    <wsdl:port name="PayloadPort" binding="tns:PayloadBinding">
      <soap:address location="{}"/>
    </wsdl:port>
  </wsdl:service>
</wsdl:definitions>
"#,
        escape(location)
    )
}

#[cfg(test)]
mod tests {
    use actix_web::test::{self, TestRequest};
    use actix_web::App;

    use super::*;

    fn envelope(operation: &str) -> String {
        format!(r#"<?xml version="1.0"?><s:Envelope xmlns:s="{ENVELOPE_NS}"><s:Body>{operation}</s:Body></s:Envelope>"#)
    }

    fn get_payload(size: &str) -> String {
        envelope(&format!(r#"<p:GetPayload xmlns:p="{SERVICE_NS}"><p:size>{size}</p:size></p:GetPayload>"#))
    }

    async fn post(body: String, action: Option<&str>, content_type: &str) -> (StatusCode, String) {
        let app = test::init_service(App::new().configure(configure)).await;
        let mut req = TestRequest::post().uri("/soap").insert_header((header::CONTENT_TYPE, content_type.to_owned()));
        if let Some(a) = action {
            req = req.insert_header(("SOAPAction", a.to_owned()));
        }
        let resp = test::call_service(&app, req.set_payload(body).to_request()).await;
        assert_eq!(resp.headers().get(header::CONTENT_TYPE).unwrap(), XML);
        let status = resp.status();
        (status, String::from_utf8(test::read_body(resp).await.to_vec()).unwrap())
    }

    /// A size spelt with references or CDATA is the same text, hence the same size; text that is
    /// not a number once read is a Client fault, never another size.
    #[test]
    fn a_size_is_its_text_however_it_is_spelt() {
        for spelling in ["1024", "1&#48;24", "1&#x30;24", "<![CDATA[1024]]>", "10<![CDATA[2]]>4", " 1024 "] {
            let body = get_payload(spelling);
            assert_eq!(get_payload_size(body.as_bytes()), Ok(1024), "{spelling}");
        }
        for refused in ["1&amp;2", "1&lt;2", "&#x31;&#x32;a", "<![CDATA[12x]]>"] {
            let fault = get_payload_size(get_payload(refused).as_bytes()).unwrap_err();
            assert_eq!(fault.code, "Client", "{refused}");
            assert!(fault.message.starts_with("size must be an integer"), "{refused}: {}", fault.message);
        }
        let fault = get_payload_size(get_payload("1&nbsp;2").as_bytes()).unwrap_err();
        assert_eq!((fault.code, fault.message.as_str()), ("Client", "undeclared entity `&nbsp;` in size"));
    }

    /// Bytes of a `GetPayload` answer around a message of `size` bytes.
    fn response_len(size: usize) -> usize {
        get_payload_response(0).len() + size
    }

    const ACTION: Option<&str> = Some("\"urn:wirebench:payload/GetPayload\"");

    #[actix_web::test]
    async fn get_payload_answers_a_message_of_exactly_size_bytes() {
        for size in [0usize, 1, 1024, 1 << 20] {
            let (status, body) = post(get_payload(&size.to_string()), ACTION, "text/xml; charset=utf-8").await;
            assert_eq!(status, StatusCode::OK, "{body}");
            assert_eq!(body.len(), response_len(size));
            let message = body.split("<message>").nth(1).unwrap().split("</message>").next().unwrap();
            assert_eq!(message, "x".repeat(size));
        }
        // Unqualified children, a default namespace, an empty SOAPAction and a harmless header.
        let body = format!(
            r#"<Envelope xmlns="{ENVELOPE_NS}"><Header><t xmlns="urn:x">1</t></Header><Body><GetPayload xmlns="{SERVICE_NS}"><size xmlns="">3</size></GetPayload></Body></Envelope>"#
        );
        let (status, answer) = post(body, Some("\"\""), "text/xml").await;
        assert_eq!(status, StatusCode::OK, "{answer}");
        assert!(answer.contains("<message>xxx</message>"));
    }

    #[actix_web::test]
    async fn bad_calls_get_faults_with_500() {
        let cases: Vec<(String, Option<&str>, &str, &str, &str)> = vec![
            ("<s:Envelope".into(), ACTION, "text/xml", "soap:Client", "malformed XML"),
            ("not xml at all".into(), ACTION, "text/xml", "soap:Client", "root element"),
            (get_payload("1024"), ACTION, "application/json", "soap:Client", "Content-Type"),
            (get_payload("1024"), None, "text/xml", "soap:Client", "SOAPAction header is missing"),
            (get_payload("1024"), Some("\"urn:other\""), "text/xml", "soap:Client", "does not name GetPayload"),
            (envelope(r#"<p:Delete xmlns:p="urn:wirebench:payload"/>"#), ACTION, "text/xml", "soap:Client", "unknown operation"),
            (get_payload("-1"), ACTION, "text/xml", "soap:Client", "size must be"),
            (get_payload("67108865"), ACTION, "text/xml", "soap:Client", "size must be"),
            (envelope(r#"<p:GetPayload xmlns:p="urn:wirebench:payload"/>"#), ACTION, "text/xml", "soap:Client", "needs a `size`"),
            (envelope(""), ACTION, "text/xml", "soap:Client", "no soap:Body"),
            (envelope("<q:GetPayload>"), ACTION, "text/xml", "soap:Client", "undeclared namespace prefix"),
            (
                get_payload("1").replace(ENVELOPE_NS, "http://www.w3.org/2003/05/soap-envelope"),
                ACTION,
                "text/xml",
                "soap:VersionMismatch",
                "namespace",
            ),
            (
                get_payload("1").replace("<s:Body>", r#"<s:Header><b xmlns="urn:b"><c>1</c></b><a s:mustUnderstand="1" xmlns="urn:a"/></s:Header><s:Body>"#),
                ACTION,
                "text/xml",
                "soap:MustUnderstand",
                "not understood",
            ),
            (
                format!("<!DOCTYPE x [<!ENTITY e \"e\">]>{}", get_payload("1").trim_start_matches(r#"<?xml version="1.0"?>"#)),
                ACTION,
                "text/xml",
                "soap:Client",
                "DTD",
            ),
        ];
        for (body, action, content_type, code, message) in cases {
            let (status, answer) = post(body.clone(), action, content_type).await;
            assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR, "{body}: {answer}");
            assert!(answer.contains(&format!("<faultcode>{code}</faultcode>")), "{body}: {answer}");
            assert!(answer.contains(message), "{body}: {answer}");
        }
    }

    #[actix_web::test]
    async fn wsdl_names_this_server_and_the_operation() {
        let app = test::init_service(App::new().configure(configure)).await;
        let req = TestRequest::get().uri("/soap?wsdl").insert_header((header::HOST, "127.0.0.1:8080")).to_request();
        let resp = test::call_service(&app, req).await;
        assert_eq!(resp.status(), StatusCode::OK);
        let body = String::from_utf8(test::read_body(resp).await.to_vec()).unwrap();
        assert!(body.contains(r#"<soap:address location="http://127.0.0.1:8080/soap"/>"#), "{body}");
        assert!(body.contains(&format!(r#"soapAction="{GET_PAYLOAD_ACTION}""#)));
        // The WSDL is well-formed XML.
        let mut reader = quick_xml::Reader::from_str(&body);
        while !matches!(reader.read_event().unwrap(), Event::Eof) {}
        let resp = test::call_service(&app, TestRequest::get().uri("/soap").to_request()).await;
        assert_eq!(resp.status(), StatusCode::BAD_REQUEST);
    }
}
