package transform

// The members of each object the shipment fast path decodes, as wire names
// them. Each object's members are constants of their own type, numbered in
// the order the service writes them (object tries the next one first), and
// its field set maps each constant to its JSON name explicitly: the
// decoders dispatch on the constants, never on a position in a list, so a
// member added here cannot fall into another member's decoder, and a
// constant without a name (or a name without a constant) fails at
// package initialisation. shipmentmembers_test.go decodes each member alone.

// shipmentMember is a member of a shipment object (top level or data).
type shipmentMember int

const (
	shipmentMemberMetadata shipmentMember = iota
	shipmentMemberRoute
	shipmentMemberContainers
	shipmentMemberData
	shipmentMemberCount
)

var shipmentFields = newFieldSet(shipmentMemberCount, map[shipmentMember]string{
	shipmentMemberMetadata:   "metadata",
	shipmentMemberRoute:      "route",
	shipmentMemberContainers: "containers",
	shipmentMemberData:       "data",
})

// metadataMember is a member of shipment.metadata.
type metadataMember int

const (
	metadataMemberShipmentType metadataMember = iota
	metadataMemberShipmentNumber
	metadataMemberSealine
	metadataMemberSealineName
	metadataMemberShippingStatus
	metadataMemberUpdatedAt
	metadataMemberWarnings
	metadataMemberCount
)

var metadataFields = newFieldSet(metadataMemberCount, map[metadataMember]string{
	metadataMemberShipmentType:   "shipmentType",
	metadataMemberShipmentNumber: "shipmentNumber",
	metadataMemberSealine:        "sealine",
	metadataMemberSealineName:    "sealineName",
	metadataMemberShippingStatus: "shippingStatus",
	metadataMemberUpdatedAt:      "updatedAt",
	metadataMemberWarnings:       "warnings",
})

// routeMember is a member of shipment.route.
type routeMember int

const (
	routeMemberPrepol routeMember = iota
	routeMemberPol
	routeMemberPod
	routeMemberPostpod
	routeMemberCount
)

var routeFields = newFieldSet(routeMemberCount, map[routeMember]string{
	routeMemberPrepol:  "prepol",
	routeMemberPol:     "pol",
	routeMemberPod:     "pod",
	routeMemberPostpod: "postpod",
})

// pointMember is a member of a route point; pointMemberPredictiveETA is pod's
// only.
type pointMember int

const (
	pointMemberLocation pointMember = iota
	pointMemberDate
	pointMemberActual
	pointMemberPredictiveETA
	pointMemberCount
)

var (
	routePointFields = newFieldSet(pointMemberPredictiveETA, map[pointMember]string{
		pointMemberLocation: "location",
		pointMemberDate:     "date",
		pointMemberActual:   "actual",
	})
	podFields = newFieldSet(pointMemberCount, map[pointMember]string{
		pointMemberLocation:      "location",
		pointMemberDate:          "date",
		pointMemberActual:        "actual",
		pointMemberPredictiveETA: "predictiveEta",
	})
)

// locationMember is a member of a Location object.
type locationMember int

const (
	locationMemberName locationMember = iota
	locationMemberState
	locationMemberCountry
	locationMemberCountryCode
	locationMemberLocode
	locationMemberCoordinates
	locationMemberTimezone
	locationMemberCount
)

var locationFields = newFieldSet(locationMemberCount, map[locationMember]string{
	locationMemberName:        "name",
	locationMemberState:       "state",
	locationMemberCountry:     "country",
	locationMemberCountryCode: "countryCode",
	locationMemberLocode:      "locode",
	locationMemberCoordinates: "coordinates",
	locationMemberTimezone:    "timezone",
})

// coordinatesMember is a member of a coordinates object.
type coordinatesMember int

const (
	coordinatesMemberLat coordinatesMember = iota
	coordinatesMemberLng
	coordinatesMemberUpdatedAt
	coordinatesMemberCount
)

var coordinatesFields = newFieldSet(coordinatesMemberCount, map[coordinatesMember]string{
	coordinatesMemberLat:       "lat",
	coordinatesMemberLng:       "lng",
	coordinatesMemberUpdatedAt: "updatedAt",
})

// facilityMember is a member of a Facility object.
type facilityMember int

const (
	facilityMemberName facilityMember = iota
	facilityMemberCountryCode
	facilityMemberLocode
	facilityMemberBICCode
	facilityMemberSMDGCode
	facilityMemberCoordinates
	facilityMemberCount
)

var facilityFields = newFieldSet(facilityMemberCount, map[facilityMember]string{
	facilityMemberName:        "name",
	facilityMemberCountryCode: "countryCode",
	facilityMemberLocode:      "locode",
	facilityMemberBICCode:     "bicCode",
	facilityMemberSMDGCode:    "smdgCode",
	facilityMemberCoordinates: "coordinates",
})

// vesselMember is a member of a Vessel object.
type vesselMember int

const (
	vesselMemberName vesselMember = iota
	vesselMemberIMO
	vesselMemberCallSign
	vesselMemberMMSI
	vesselMemberFlag
	vesselMemberCount
)

var vesselFields = newFieldSet(vesselMemberCount, map[vesselMember]string{
	vesselMemberName:     "name",
	vesselMemberIMO:      "imo",
	vesselMemberCallSign: "callSign",
	vesselMemberMMSI:     "mmsi",
	vesselMemberFlag:     "flag",
})

// containerMember is a member of a container.
type containerMember int

const (
	containerMemberNumber containerMember = iota
	containerMemberISOCode
	containerMemberStatus
	containerMemberEvents
	containerMemberCount
)

var containerFields = newFieldSet(containerMemberCount, map[containerMember]string{
	containerMemberNumber:  "number",
	containerMemberISOCode: "isoCode",
	containerMemberStatus:  "status",
	containerMemberEvents:  "events",
})

// eventMember is a member of a container event.
type eventMember int

const (
	eventMemberLocation eventMember = iota
	eventMemberFacility
	eventMemberDescription
	eventMemberType
	eventMemberCode
	eventMemberStatus
	eventMemberDate
	eventMemberIsActual
	eventMemberIsAdditionalEvent
	eventMemberRouteType
	eventMemberTransportType
	eventMemberVessel
	eventMemberVoyage
	eventMemberCount
)

var eventFields = newFieldSet(eventMemberCount, map[eventMember]string{
	eventMemberLocation:          "location",
	eventMemberFacility:          "facility",
	eventMemberDescription:       "description",
	eventMemberType:              "eventType",
	eventMemberCode:              "eventCode",
	eventMemberStatus:            "status",
	eventMemberDate:              "date",
	eventMemberIsActual:          "isActual",
	eventMemberIsAdditionalEvent: "isAdditionalEvent",
	eventMemberRouteType:         "routeType",
	eventMemberTransportType:     "transportType",
	eventMemberVessel:            "vessel",
	eventMemberVoyage:            "voyage",
})
