"""The appliance: camera back ends, capture trigger, service loop, storage and web view."""
