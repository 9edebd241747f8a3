//! Opening an input: a plain file or a gzip stream (single or multi-member), told apart by the gzip magic
//! bytes rather than the file name, and a count of the bytes read from the file for progress.

use std::fs::File;
use std::io::{self, BufReader, Chain, Cursor, Read};

use flate2::read::MultiGzDecoder;

/// Counts the bytes that pass through it.
pub struct Counting<R> {
    inner: R,
    pub count: u64,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count += n as u64;
        Ok(n)
    }
}

type Raw<R> = Chain<Cursor<Vec<u8>>, Counting<R>>;

pub enum Input<R> {
    Plain(Raw<R>),
    Gzip(Box<MultiGzDecoder<BufReader<Raw<R>>>>),
}

impl<R: Read> Read for Input<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Input::Plain(r) => r.read(buf),
            Input::Gzip(r) => r.read(buf),
        }
    }
}

impl<R: Read> Input<R> {
    /// Peek at the first two bytes and wrap `inner` accordingly.
    pub fn new(inner: R) -> io::Result<Input<R>> {
        let mut counting = Counting { inner, count: 0 };
        let mut magic = Vec::with_capacity(2);
        (&mut counting).take(2).read_to_end(&mut magic)?;
        let gzip = magic == [0x1f, 0x8b];
        let raw = Cursor::new(magic).chain(counting);
        Ok(if gzip {
            Input::Gzip(Box::new(MultiGzDecoder::new(BufReader::with_capacity(
                1 << 18,
                raw,
            ))))
        } else {
            Input::Plain(raw)
        })
    }

    pub fn is_gzip(&self) -> bool {
        matches!(self, Input::Gzip(_))
    }

    /// Bytes read from the underlying reader (compressed bytes for gzip).
    pub fn raw_bytes(&self) -> u64 {
        match self {
            Input::Plain(r) => r.get_ref().1.count,
            Input::Gzip(r) => r.get_ref().get_ref().get_ref().1.count,
        }
    }
}

pub fn open(path: &str) -> io::Result<Input<File>> {
    let file = File::open(path)?;
    if file.metadata()?.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "is a directory",
        ));
    }
    Input::new(file)
}
