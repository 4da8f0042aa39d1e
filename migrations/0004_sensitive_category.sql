-- Why a memory is sensitive (docs/SECURITY.md, "Sensitivity model"): credentials,
-- government_id, finance, health, sexuality, precise_location, contact or other. NULL when
-- the memory is not sensitive, or was marked sensitive without a reason.
ALTER TABLE memories ADD COLUMN sensitive_category TEXT;
