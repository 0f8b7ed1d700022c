//! Call frame information of one module: `.eh_frame` (found through
//! `.eh_frame_hdr`'s binary-search table, or an index built once) and
//! `.debug_frame` (of the file or of its separate debug file, loaded only
//! when `.eh_frame` does not cover an address).

use crate::symbols::{ElfImage, Module, Reader};
use gimli::{BaseAddresses, CieOrFde, DebugFrame, EhFrame, UnwindSection};
use std::sync::{Arc, OnceLock};

/// Scratch state for CFI evaluation, reused across lookups.
pub type Context = gimli::UnwindContext<usize>;
/// A CFI table row: the rules at one address.
pub type Row = gimli::UnwindTableRow<usize>;

/// One CFI section with its base addresses and a sorted FDE index.
struct Section<S> {
    section: S,
    bases: BaseAddresses,
    /// `(start, end, FDE offset)`, sorted by start; empty when a
    /// `.eh_frame_hdr` table is used instead.
    index: Vec<(u64, u64, usize)>,
    hdr: Option<gimli::ParsedEhFrameHdr<Reader>>,
}

/// The rules found for an address.
pub struct Found {
    /// The row (copied out of the scratch context).
    pub row: Row,
    /// The FDE's CIE has the `S` augmentation: a signal trampoline.
    pub signal: bool,
    /// Which section the row's expressions refer to.
    pub source: Source,
}

/// Which section a row came from (its expressions are offsets into it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// `.eh_frame`.
    EhFrame,
    /// `.debug_frame`.
    DebugFrame,
}

/// The CFI of one module.
pub struct ModuleCfi {
    module: Arc<Module>,
    eh: Option<Section<EhFrame<Reader>>>,
    debug: OnceLock<Option<Section<DebugFrame<Reader>>>>,
    /// Address size of the module.
    pub address_size: u8,
}

impl ModuleCfi {
    /// Reads the module's `.eh_frame` (cheap: the index comes from
    /// `.eh_frame_hdr` when there is one).
    pub fn load(module: Arc<Module>) -> ModuleCfi {
        let image = module.image().cloned();
        let address_size = image.as_ref().map_or(8, |i| i.address_size());
        let eh = image.as_deref().and_then(load_eh_frame);
        ModuleCfi {
            module,
            eh,
            debug: OnceLock::new(),
            address_size,
        }
    }

    /// The rules for file address `vaddr`, from `.eh_frame`, else `.debug_frame`.
    pub fn find(&self, ctx: &mut Context, vaddr: u64) -> Option<Found> {
        if let Some(eh) = &self.eh {
            if let Some(found) = find_in(eh, ctx, vaddr, Source::EhFrame) {
                return Some(found);
            }
        }
        let debug = self.debug.get_or_init(|| {
            let from_debug_file = self.module.debug_image().and_then(|i| load_debug_frame(i));
            from_debug_file.or_else(|| self.module.image().and_then(|i| load_debug_frame(i)))
        });
        find_in(debug.as_ref()?, ctx, vaddr, Source::DebugFrame)
    }

    /// A row's expression as a reader over its section.
    pub fn expression(
        &self,
        source: Source,
        expr: &gimli::UnwindExpression<usize>,
    ) -> Option<gimli::Expression<Reader>> {
        match source {
            Source::EhFrame => expr.get(&self.eh.as_ref()?.section).ok(),
            Source::DebugFrame => expr.get(&self.debug.get()?.as_ref()?.section).ok(),
        }
    }
}

fn load_eh_frame(image: &ElfImage) -> Option<Section<EhFrame<Reader>>> {
    let data = image.section_reader(".eh_frame").ok()??;
    let mut section = EhFrame::from(data);
    section.set_address_size(image.address_size());
    let mut bases = BaseAddresses::default().set_eh_frame(image.section_addr(".eh_frame")?);
    if let Some(text) = image.section_addr(".text") {
        bases = bases.set_text(text);
    }
    if let Some(got) = image.section_addr(".got") {
        bases = bases.set_got(got);
    }
    let mut hdr = None;
    if let (Some(addr), Ok(Some(data))) = (
        image.section_addr(".eh_frame_hdr"),
        image.section_reader(".eh_frame_hdr"),
    ) {
        bases = bases.set_eh_frame_hdr(addr);
        hdr = gimli::EhFrameHdr::from(data)
            .parse(&bases, image.address_size())
            .ok()
            .filter(|h| h.table().is_some());
    }
    let index = if hdr.is_some() {
        Vec::new()
    } else {
        build_index(&section, &bases)
    };
    Some(Section {
        section,
        bases,
        index,
        hdr,
    })
}

fn load_debug_frame(image: &ElfImage) -> Option<Section<DebugFrame<Reader>>> {
    let data = image.section_reader(".debug_frame").ok()??;
    let mut section = DebugFrame::from(data);
    section.set_address_size(image.address_size());
    let bases = BaseAddresses::default();
    let index = build_index(&section, &bases);
    Some(Section {
        section,
        bases,
        index,
        hdr: None,
    })
}

/// Every FDE's address range, sorted; parsing stops at the first corrupt
/// entry (the FDEs before it stay usable).
fn build_index<S: UnwindSection<Reader>>(
    section: &S,
    bases: &BaseAddresses,
) -> Vec<(u64, u64, usize)> {
    let mut index = Vec::new();
    let mut entries = section.entries(bases);
    while let Ok(Some(entry)) = entries.next() {
        if let CieOrFde::Fde(partial) = entry {
            if let Ok(fde) = partial.parse(S::cie_from_offset) {
                if fde.len() > 0 {
                    let start = fde.initial_address();
                    index.push((start, start.saturating_add(fde.len()), fde.offset()));
                }
            }
        }
        if index.len() > 4_000_000 {
            break;
        }
    }
    index.sort_unstable_by_key(|e| e.0);
    index
}

fn find_in<S: UnwindSection<Reader>>(
    sec: &Section<S>,
    ctx: &mut Context,
    vaddr: u64,
    source: Source,
) -> Option<Found> {
    let fde = if let Some(table) = sec.hdr.as_ref().and_then(|h| h.table()) {
        let ptr = table.lookup(vaddr, &sec.bases).ok()?;
        let offset = table.pointer_to_offset(ptr).ok()?;
        let fde = sec
            .section
            .fde_from_offset(&sec.bases, offset.0.into(), S::cie_from_offset)
            .ok()?;
        fde.contains(vaddr).then_some(fde)?
    } else {
        let i = sec.index.partition_point(|e| e.0 <= vaddr);
        let &(_, end, offset) = sec.index.get(i.checked_sub(1)?)?;
        if vaddr >= end {
            return None;
        }
        sec.section
            .fde_from_offset(&sec.bases, offset.into(), S::cie_from_offset)
            .ok()?
    };
    let row = fde
        .unwind_info_for_address(&sec.section, &sec.bases, ctx, vaddr)
        .ok()?
        .clone();
    Some(Found {
        row,
        signal: fde.is_signal_trampoline(),
        source,
    })
}
