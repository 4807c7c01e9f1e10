//! A streaming walk over an XML document for the USEBIO and Scorer readers: elements are met one at a
//! time (no tree is built, so memory stays bounded whatever the input), each with its line and its path
//! from the root (`EVENT/BOARD[3]/TRAVELLER_LINE[2]`), and each leaf element's text is handed over when
//! it closes, borrowed from the input whenever possible.

use std::borrow::Cow;

use quick_xml::Reader;
use quick_xml::events::{BytesStart, Event};

use crate::error::{Error, Problem, Result};
use crate::text::{self, LineCounter};

/// Deepest nesting accepted: results files nest five or six levels; garbage may nest without end.
pub(crate) const MAX_DEPTH: usize = 32;

/// Element names whose position among their siblings is shown in paths (`BOARD[3]`).
const NUMBERED: [&str; 13] = [
    "BOARD",
    "TRAVELLER_LINE",
    "PAIR",
    "PLAYER",
    "HAND",
    "SESSION",
    "SECTION",
    "result",
    "pair",
    "section",
    "brsection",
    "scsection",
    "MATCH",
];

/// The text of a document: UTF-8 as it is, or converted from the character set its XML declaration
/// names (ISO-8859-1, Windows-1252) or its byte-order mark (UTF-16); with the warning of a document
/// that names none and is not UTF-8, read as Windows-1252 ([`text::as_windows_1252`]).
pub(crate) fn decode<'a>(file: &str, bytes: &'a [u8]) -> Result<(Cow<'a, str>, Option<Problem>)> {
    if let Some(text) = text::utf16(file, bytes) {
        return text.map(|t| (Cow::Owned(t), None));
    }
    let bytes = text::strip_bom(bytes);
    let encoding = declared_encoding(bytes).map(|e| e.to_ascii_lowercase());
    let text = match encoding.as_deref() {
        None | Some("utf-8") | Some("utf8") | Some("us-ascii") | Some("ascii") => {
            if let Ok(text) = std::str::from_utf8(bytes) {
                return Ok((Cow::Borrowed(text), None));
            }
            if encoding.is_none()
                && let Some((text, warning)) = text::as_windows_1252(file, bytes)
            {
                return Ok((Cow::Owned(text), Some(warning)));
            }
            text::utf8(
                file,
                bytes,
                " (an XML file without an encoding declaration must be UTF-8)",
            )
            .map(Cow::Borrowed)
        }
        Some("iso-8859-1") | Some("iso8859-1") | Some("latin1") | Some("latin-1")
        | Some("iso-8859-15") => Ok(Cow::Owned(text::latin1(bytes))),
        Some("windows-1252") | Some("cp1252") => Ok(Cow::Owned(text::windows_1252(bytes))),
        Some(other) => Err(Error::at(
            file,
            1,
            Some("encoding"),
            format!("the file is in the {other} character set; save it as UTF-8 (or ISO-8859-1)"),
        )),
    };
    text.map(|t| (t, None))
}

/// The `encoding` of an XML declaration at the start of `bytes`.
fn declared_encoding(bytes: &[u8]) -> Option<String> {
    let head = &bytes[..bytes.len().min(256)];
    if !head.starts_with(b"<?xml") {
        return None;
    }
    let end = memchr::memmem::find(head, b"?>")?;
    let decl = std::str::from_utf8(&head[..end]).ok()?;
    let after = &decl[decl.find("encoding")? + "encoding".len()..];
    let after = after.trim_start().strip_prefix('=')?.trim_start();
    let quote = after.chars().next()?;
    if quote != '"' && quote != '\'' {
        return None;
    }
    let value = &after[1..];
    Some(value[..value.find(quote)?].to_string())
}

/// The name of a document's root element, from the start of the file (for format detection).
pub(crate) fn root_name(file: &str, bytes: &[u8]) -> Result<Option<String>> {
    const HEAD: usize = 64 << 10;
    let text: Cow<'_, str> = match text::utf16(file, &bytes[..bytes.len().min(HEAD)]) {
        Some(t) => Cow::Owned(t.unwrap_or_default()),
        None => String::from_utf8_lossy(text::strip_bom(&bytes[..bytes.len().min(HEAD)])),
    };
    let mut reader = Reader::from_str(&text);
    loop {
        match reader.read_event() {
            Ok(Event::Start(e)) | Ok(Event::Empty(e)) => {
                return Ok(Some(e.name().as_ref().to_string()));
            }
            Ok(Event::Eof) => return Ok(None),
            Ok(_) => {}
            Err(e) => {
                // The head may end inside a tag; only an error well inside it is the file's.
                let at = reader.error_position() as usize;
                if at + 1024 >= text.len() && bytes.len() > HEAD {
                    return Ok(None);
                }
                let message = if ends_inside_tag(text.as_bytes(), at) {
                    format!("the file ends inside a tag: it is cut short ({e})")
                } else {
                    format!("the XML is not well-formed: {e}")
                };
                return Err(Error::at(
                    file,
                    text::line_of(text.as_bytes(), at),
                    None,
                    message,
                ));
            }
        }
    }
}

/// Whether the document ends inside the tag an error was found in: nothing after the error closes it.
fn ends_inside_tag(input: &[u8], error_at: usize) -> bool {
    memchr::memchr(b'>', input.get(error_at..).unwrap_or_default()).is_none()
}

/// `part` as a slice of `input` with `input`'s lifetime, if it lies inside it.
fn reborrow<'a>(input: &'a str, part: &str) -> Option<&'a str> {
    let start = (part.as_ptr() as usize).checked_sub(input.as_ptr() as usize)?;
    let end = start.checked_add(part.len())?;
    input
        .get(start..end)
        .filter(|s| s.as_ptr() == part.as_ptr())
}

/// `value` with `input`'s lifetime: borrowed if it lies inside `input` (written as it reads),
/// else owned.
fn reborrowed<'a>(input: &'a str, value: Cow<'_, str>) -> Cow<'a, str> {
    match reborrow(input, &value) {
        Some(s) => Cow::Borrowed(s),
        None => Cow::Owned(value.into_owned()),
    }
}

/// An open element.
#[derive(Debug)]
pub(crate) struct Frame<'a> {
    pub name: Cow<'a, str>,
    /// 1-based position among same-named siblings (0 when not numbered).
    pub index: u32,
    /// The line of its start tag.
    pub line: u64,
    counts: [u32; NUMBERED.len()],
}

/// What the walk met.
#[derive(Debug)]
pub(crate) enum Node<'a> {
    /// An element opened; its attributes are in `start`.
    Start { start: BytesStart<'a>, line: u64 },
    /// The element `name` closed; `text` is its own text, trimmed (empty for elements with children).
    End {
        name: Cow<'a, str>,
        text: Cow<'a, str>,
        line: u64,
    },
    /// The document ended with every element closed.
    Eof,
}

/// Text collected for the element being read.
#[derive(Debug, Default)]
enum Collected<'a> {
    #[default]
    Empty,
    Borrowed(&'a str),
    Owned(String),
}

impl<'a> Collected<'a> {
    fn push(&mut self, piece: Cow<'a, str>) {
        *self = match (std::mem::take(self), piece) {
            (Collected::Empty, Cow::Borrowed(s)) => Collected::Borrowed(s),
            (Collected::Empty, Cow::Owned(s)) => Collected::Owned(s),
            (Collected::Borrowed(a), b) => Collected::Owned(format!("{a}{b}")),
            (Collected::Owned(mut a), b) => {
                a.push_str(&b);
                Collected::Owned(a)
            }
        };
    }

    fn take_trimmed(&mut self) -> Cow<'a, str> {
        match std::mem::take(self) {
            Collected::Empty => Cow::Borrowed(""),
            Collected::Borrowed(s) => Cow::Borrowed(s.trim()),
            Collected::Owned(s) => text::trim_cow(Cow::Owned(s)),
        }
    }
}

/// Walks a document element by element.
pub(crate) struct Walker<'a> {
    file: &'a str,
    input: &'a str,
    reader: Reader<&'a [u8]>,
    lines: LineCounter<'a>,
    stack: Vec<Frame<'a>>,
    text: Collected<'a>,
    /// An empty element (`<X/>`) was opened: its end comes next.
    pending_end: bool,
    root_counts: [u32; NUMBERED.len()],
}

impl<'a> Walker<'a> {
    pub(crate) fn new(file: &'a str, input: &'a str) -> Self {
        let mut reader = Reader::from_str(input);
        reader.config_mut().check_end_names = true;
        Walker {
            file,
            input,
            reader,
            lines: LineCounter::new(input.as_bytes()),
            stack: Vec::with_capacity(MAX_DEPTH),
            text: Collected::Empty,
            pending_end: false,
            root_counts: [0; NUMBERED.len()],
        }
    }

    /// The open elements, outermost first.
    pub(crate) fn stack(&self) -> &[Frame<'a>] {
        &self.stack
    }

    /// The name of the element `up` levels above the current one (0: the current element).
    pub(crate) fn ancestor(&self, up: usize) -> Option<&str> {
        self.stack
            .len()
            .checked_sub(up + 1)
            .map(|i| &*self.stack[i].name)
    }

    /// Like [`Walker::ancestor`], as a name borrowed from the input when possible (cheap to keep).
    pub(crate) fn ancestor_name(&self, up: usize) -> Cow<'a, str> {
        self.stack
            .len()
            .checked_sub(up + 1)
            .map_or(Cow::Borrowed(""), |i| self.stack[i].name.clone())
    }

    /// The path of the open elements below the root, such as `EVENT/BOARD[3]/TRAVELLER_LINE[2]`.
    pub(crate) fn path(&self) -> String {
        use std::fmt::Write as _;
        let mut out = String::with_capacity(48);
        for frame in self.stack.iter().skip(1) {
            if !out.is_empty() {
                out.push('/');
            }
            out.push_str(&frame.name);
            if frame.index > 0 {
                let _ = write!(out, "[{}]", frame.index);
            }
        }
        out
    }

    /// The current line (of the last event read).
    pub(crate) fn line(&mut self) -> u64 {
        let at = self.reader.buffer_position() as usize;
        self.lines.line_at(at)
    }

    /// An error at the current element.
    pub(crate) fn error(&mut self, field: Option<String>, message: impl Into<String>) -> Error {
        let line = self.line();
        let path = field.unwrap_or_else(|| self.path());
        Error::at(
            self.file,
            line,
            (!path.is_empty()).then_some(path.as_str()),
            message,
        )
    }

    fn open(&mut self, start: &BytesStart<'_>) -> Result<(Cow<'a, str>, u64)> {
        let raw: &str = start;
        let line = match reborrow(self.input, raw) {
            Some(s) => {
                let offset = s.as_ptr() as usize - self.input.as_ptr() as usize;
                self.lines.line_at(offset)
            }
            None => self.line(),
        };
        let name_bytes = start.name();
        let name_text: &str = name_bytes.as_ref();
        let name = match reborrow(self.input, name_text) {
            Some(s) => Cow::Borrowed(s),
            None => Cow::Owned(name_text.to_string()),
        };
        if self.stack.len() >= MAX_DEPTH {
            return Err(self.error(
                None,
                format!("elements are nested more than {MAX_DEPTH} deep at <{name}>: this is not a results file"),
            ));
        }
        let counts = match self.stack.last_mut() {
            Some(parent) => &mut parent.counts,
            None => &mut self.root_counts,
        };
        let index = match NUMBERED.iter().position(|n| *n == name) {
            Some(k) => {
                counts[k] += 1;
                counts[k]
            }
            None => 0,
        };
        self.stack.push(Frame {
            name: name.clone(),
            index,
            line,
            counts: [0; NUMBERED.len()],
        });
        self.text = Collected::Empty;
        Ok((name, line))
    }

    fn close(&mut self) -> Node<'a> {
        let frame = self.stack.pop();
        let text = self.text.take_trimmed();
        match frame {
            Some(f) => Node::End {
                name: f.name,
                text,
                line: f.line,
            },
            None => Node::Eof,
        }
    }

    /// The next element start or end.
    pub(crate) fn next(&mut self) -> Result<Node<'a>> {
        if self.pending_end {
            self.pending_end = false;
            return Ok(self.close());
        }
        loop {
            let event = match self.reader.read_event() {
                Ok(e) => e,
                Err(e) => {
                    let at = self.reader.error_position() as usize;
                    let line = self.lines.line_at(at);
                    let path = self.path();
                    let cut = self.reader.buffer_position() as usize >= self.input.len()
                        || ends_inside_tag(self.input.as_bytes(), at);
                    let message = if cut {
                        format!("the file ends inside a tag: it is cut short ({e})")
                    } else {
                        format!("the XML is not well-formed: {e}")
                    };
                    return Err(Error::at(
                        self.file,
                        line,
                        (!path.is_empty()).then_some(path.as_str()),
                        message,
                    ));
                }
            };
            match event {
                Event::Start(start) => {
                    let (_, line) = self.open(&start)?;
                    return Ok(Node::Start { start, line });
                }
                Event::Empty(start) => {
                    let (_, line) = self.open(&start)?;
                    self.pending_end = true;
                    return Ok(Node::Start { start, line });
                }
                Event::End(_) => return Ok(self.close()),
                Event::Text(t) => {
                    // Indentation between elements is most of the text events: skip it cheaply.
                    let raw: &str = &t;
                    if matches!(self.text, Collected::Empty)
                        && raw.bytes().all(|b| b.is_ascii_whitespace())
                    {
                        continue;
                    }
                    let piece = t.xml10_content();
                    self.text.push(piece);
                }
                Event::CData(c) => {
                    let piece = c.xml10_content();
                    self.text.push(piece);
                }
                Event::GeneralRef(r) => {
                    let resolved = match r.resolve_char_ref() {
                        Ok(Some(c)) => c.to_string(),
                        Ok(None) => match &*r {
                            "amp" => "&".to_string(),
                            "lt" => "<".to_string(),
                            "gt" => ">".to_string(),
                            "quot" => "\"".to_string(),
                            "apos" => "'".to_string(),
                            other => {
                                let other = other.to_string();
                                return Err(self.error(None, format!("unknown entity &{other};")));
                            }
                        },
                        Err(e) => {
                            return Err(self.error(None, format!("bad character reference: {e}")));
                        }
                    };
                    self.text.push(Cow::Owned(resolved));
                }
                Event::Eof => {
                    if let Some(open) = self.stack.last() {
                        let (name, line) = (open.name.to_string(), open.line);
                        let path = self.path();
                        return Err(Error::at(
                            self.file,
                            self.lines.line_at(self.input.len()),
                            (!path.is_empty()).then_some(path.as_str()),
                            format!(
                                "the file ends inside <{name}> (opened on line {line}): it is cut short"
                            ),
                        ));
                    }
                    return Ok(Node::Eof);
                }
                Event::Comment(_) | Event::Decl(_) | Event::PI(_) | Event::DocType(_) => {}
            }
        }
    }
}

/// The attributes of an element as (name, unescaped value), values borrowed from the input when they
/// have no entities.
pub(crate) fn attributes<'a>(
    walker: &mut Walker<'a>,
    start: &BytesStart<'_>,
) -> Result<Vec<(String, Cow<'a, str>)>> {
    let mut out = Vec::new();
    for attr in start.attributes() {
        let attr = match attr {
            Ok(a) => a,
            Err(e) => return Err(walker.error(None, format!("bad attribute: {e}"))),
        };
        let key = attr.key.as_ref().to_string();
        let value = match attr.normalized_value(quick_xml::XmlVersion::Implicit1_0) {
            Ok(v) => v,
            Err(e) => {
                return Err(walker.error(
                    Some(format!("{}/@{key}", walker.path())),
                    format!("bad value: {e}"),
                ));
            }
        };
        out.push((key, reborrowed(walker.input, value)));
    }
    Ok(out)
}

/// [`attribute`], borrowed from the walker's input where the value is written as it reads.
pub(crate) fn attribute_in<'a>(
    walker: &Walker<'a>,
    start: &BytesStart<'_>,
    name: &str,
) -> Option<Cow<'a, str>> {
    let attr =
        (start.attributes().flatten()).find(|a| a.key.as_ref().eq_ignore_ascii_case(name))?;
    let value = attr
        .normalized_value(quick_xml::XmlVersion::Implicit1_0)
        .ok()?;
    Some(reborrowed(walker.input, value))
}

/// The value of attribute `name` (case-insensitive) of an element.
pub(crate) fn attribute(start: &BytesStart<'_>, name: &str) -> Option<String> {
    start
        .attributes()
        .flatten()
        .find(|a| a.key.as_ref().eq_ignore_ascii_case(name))
        .and_then(|a| {
            a.normalized_value(quick_xml::XmlVersion::Implicit1_0)
                .ok()
                .map(|v| v.into_owned())
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn walk(text: &str) -> Result<Vec<String>> {
        let mut w = Walker::new("t.xml", text);
        let mut out = Vec::new();
        loop {
            match w.next()? {
                Node::Start { start, line } => {
                    out.push(format!("<{}@{line}", start.name().as_ref()))
                }
                Node::End { name, text, .. } => out.push(format!("{name}>{text}")),
                Node::Eof => return Ok(out),
            }
        }
    }

    #[test]
    fn elements_text_and_lines() {
        let got = walk("<A>\n <B x=\"1\">Smith &amp; Jones</B>\n <C/>\n</A>").unwrap();
        assert_eq!(got, ["<A@1", "<B@2", "B>Smith & Jones", "<C@3", "C>", "A>"]);
    }

    #[test]
    fn paths_number_repeated_elements() {
        let text = "<U><E><BOARD/><BOARD><TRAVELLER_LINE/><TRAVELLER_LINE><SCORE>x</SCORE></TRAVELLER_LINE></BOARD></E></U>";
        let mut w = Walker::new("t.xml", text);
        loop {
            if let Node::Start { start, .. } = w.next().unwrap()
                && start.name().as_ref() == "SCORE"
            {
                assert_eq!(w.path(), "E/BOARD[2]/TRAVELLER_LINE[2]/SCORE");
                return;
            }
        }
    }

    #[test]
    fn truncated_and_broken_documents_are_located() {
        let err = walk("<A>\n<B>\n<C>text").unwrap_err();
        let p = &err.problems()[0];
        assert!(p.message.contains("cut short"), "{}", p.message);
        assert_eq!(p.at.field.as_deref(), Some("B/C"));
        let err = walk("<A>\n<B></C></A>").unwrap_err();
        assert_eq!(err.problems()[0].at.line, 2);
        let err = walk("<A>&nope;</A>").unwrap_err();
        assert!(err.to_string().contains("&nope;"));
        let deep = "<a>".repeat(100);
        assert!(walk(&deep).unwrap_err().to_string().contains("nested"));
    }

    #[test]
    fn character_sets() {
        let latin = b"<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><A>Ren\xe9</A>";
        let (text, warning) = decode("f", latin).unwrap();
        assert_eq!(
            (text.as_ref(), warning),
            (
                "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><A>René</A>",
                None
            )
        );
        // Naming no character set, not UTF-8: read as Windows-1252, with a warning.
        let (text, warning) = decode("f", b"<A>\n\x93\xe9\x94</A>").unwrap();
        assert_eq!(text, "<A>\n\u{201c}é\u{201d}</A>");
        assert_eq!(warning.map(|w| w.at.line), Some(2));
        // Declared UTF-8 and not, or no text at all: refused.
        assert!(decode("f", b"<?xml version='1.0' encoding='UTF-8'?><A>\xe9</A>").is_err());
        assert!(decode("f", b"<A>\xe9\x01</A>").is_err());
        assert!(decode("f", b"<?xml version='1.0' encoding='EBCDIC'?><A/>").is_err());
        assert_eq!(
            root_name("f", b"<?xml version=\"1.0\"?>\n<!DOCTYPE x>\n<USEBIO>")
                .unwrap()
                .as_deref(),
            Some("USEBIO")
        );
    }
}
